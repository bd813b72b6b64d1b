package oauth

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// DPoPAlg is the one proof algorithm warden signs with: ES256 is what
// RFC 9449 servers commonly accept and the standard library signs.
const DPoPAlg = "ES256"

// maxNonceBody bounds what is read of a token error answer to see whether
// it asks for a DPoP nonce.
const maxNonceBody = 64 << 10

// DPoPKey is the P-256 key a DPoP-bound token is bound to (RFC 9449). The
// token is useless without it, so it travels with the token.
type DPoPKey struct {
	priv *ecdsa.PrivateKey
	// jwk is the public key as the proof's jwk header carries it.
	jwk map[string]string
}

// NewDPoPKey makes an ephemeral key, for one run or one login.
func NewDPoPKey() (*DPoPKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("DPoP key: %w", err)
	}
	return newDPoPKey(priv)
}

// ParseDPoPKey reads a PEM P-256 private key (PKCS #8 or SEC 1). Errors
// never quote the key.
func ParseDPoPKey(pemText []byte) (*DPoPKey, error) {
	key, err := parsePrivateKeyPEM(pemText, "the DPoP key", "an EC private key", false)
	if err != nil {
		return nil, err
	}
	priv, ok := key.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return nil, errors.New("the DPoP key is not a P-256 EC key (ES256)")
	}
	return newDPoPKey(priv)
}

func newDPoPKey(priv *ecdsa.PrivateKey) (*DPoPKey, error) {
	pub, err := priv.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil || len(pub) != 65 {
		return nil, errors.New("DPoP key: cannot encode the public key")
	}
	b64 := base64.RawURLEncoding.EncodeToString
	return &DPoPKey{priv: priv, jwk: map[string]string{
		"kty": "EC", "crv": "P-256", "x": b64(pub[1:33]), "y": b64(pub[33:]),
	}}, nil
}

// PEM is the private key as PKCS #8 PEM, to hand a bound token's key on.
func (k *DPoPKey) PEM() ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k.priv)
	if err != nil {
		return nil, fmt.Errorf("DPoP key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// Thumbprint is the RFC 7638 SHA-256 thumbprint of the public key: the
// cnf.jkt a bound token names.
func (k *DPoPKey) Thumbprint() string {
	// RFC 7638: the required members, in lexical order, no spaces.
	s := `{"crv":"P-256","kty":"EC","x":"` + k.jwk["x"] + `","y":"` + k.jwk["y"] + `"}`
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Proof signs one DPoP proof JWT (RFC 9449 §4.2) for a request: method
// and target (its query and fragment dropped), a fresh jti, iat, the
// server's nonce when it gave one, and ath when an access token goes along.
func (k *DPoPKey) Proof(method string, target *url.URL, accessToken, nonce string, now time.Time) (string, error) {
	header, err := json.Marshal(map[string]any{"typ": "dpop+jwt", "alg": DPoPAlg, "jwk": k.jwk})
	if err != nil {
		return "", err
	}
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	htu := *target
	htu.RawQuery, htu.ForceQuery, htu.Fragment, htu.RawFragment, htu.User = "", false, "", "", nil
	claims := map[string]any{
		"jti": base64.RawURLEncoding.EncodeToString(jti),
		"htm": method,
		"htu": htu.String(),
		"iat": now.Unix(),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(payload)
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, k.priv, digest[:])
	if err != nil {
		return "", fmt.Errorf("DPoP proof: %w", err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// DPoP is a key and the nonces servers asked for, by origin (RFC 9449 §8,
// §9): the authorization server's and the resource server's are separate.
type DPoP struct {
	key *DPoPKey
	now func() time.Time

	mu     sync.Mutex
	nonces map[string]string
}

// NewDPoP binds tokens to key.
func NewDPoP(key *DPoPKey) *DPoP {
	return &DPoP{key: key, now: time.Now, nonces: map[string]string{}}
}

// Key is the key tokens are bound to.
func (d *DPoP) Key() *DPoPKey { return d.key }

// Proof signs a proof for a request to target, with the nonce its origin
// last gave.
func (d *DPoP) Proof(method string, target *url.URL, accessToken string) (string, error) {
	d.mu.Lock()
	nonce := d.nonces[originOf(target)]
	d.mu.Unlock()
	return d.key.Proof(method, target, accessToken, nonce, d.now())
}

// Remember keeps the DPoP-Nonce an answer from target's origin carries;
// true when it is one not held before (a retry with it can help).
func (d *DPoP) Remember(target *url.URL, h http.Header) bool {
	n := h.Get("DPoP-Nonce")
	if n == "" || len(n) > 1024 {
		return false
	}
	o := originOf(target)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.nonces[o] == n {
		return false
	}
	d.nonces[o] = n
	return true
}

func originOf(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// DPoPOffered says whether metadata's dpop_signing_alg_values_supported lets
// warden bind tokens.
func DPoPOffered(algs []string) bool { return slices.Contains(algs, DPoPAlg) }

// Client is hc with a proof on every POST to tokenURL, sent once more with
// the authorization server's nonce when it answers use_dpop_nonce.
func (d *DPoP) Client(hc *http.Client, tokenURL string) *http.Client {
	if hc == nil {
		hc = &http.Client{}
	}
	c := *hc
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &dpopTransport{d: d, base: base, endpoint: tokenURL}
	return &c
}

type dpopTransport struct {
	d        *DPoP
	base     http.RoundTripper
	endpoint string
}

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || !sameEndpoint(req.URL, t.endpoint) {
		return t.base.RoundTrip(req)
	}
	for try := 0; ; try++ {
		r := req.Clone(req.Context())
		if try > 0 {
			body, err := req.GetBody()
			if err != nil {
				return nil, errors.New("cannot resend the token request body")
			}
			r.Body = body
		}
		proof, err := t.d.Proof(http.MethodPost, req.URL, "")
		if err != nil {
			return nil, err
		}
		r.Header.Set("DPoP", proof)
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		fresh := t.d.Remember(req.URL, resp.Header)
		if try > 0 || !fresh || resp.StatusCode != http.StatusBadRequest || req.GetBody == nil {
			return resp, nil
		}
		// RFC 9449 §8: a 400 use_dpop_nonce with a new nonce is answered
		// by one more request with it; any other 400 goes back as it came.
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxNonceBody))
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read the token error answer: %w", err)
		}
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error != "use_dpop_nonce" {
			resp.Body = io.NopCloser(bytes.NewReader(body))
			return resp, nil
		}
	}
}

// sameEndpoint compares a request URL with the token endpoint, query aside.
func sameEndpoint(u *url.URL, endpoint string) bool {
	e, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	return originOf(u) == originOf(e) && u.EscapedPath() == e.EscapedPath()
}

// DPoPChallenge says whether a 401 asks for a DPoP nonce (RFC 9449 §9):
// WWW-Authenticate DPoP error="use_dpop_nonce".
func DPoPChallenge(status int, h http.Header) bool {
	if status != http.StatusUnauthorized {
		return false
	}
	for _, v := range h.Values("WWW-Authenticate") {
		if strings.Contains(v, "use_dpop_nonce") {
			return true
		}
	}
	return false
}
