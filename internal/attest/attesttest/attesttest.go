// Package attesttest is a local Sigstore for tests: httptest servers
// standing in for Fulcio (certificates for one fixed identity, from a local
// CA) and Rekor (hashedrekord entries with signed entry timestamps and
// inclusion proofs, from a VirtualSigstore's log key), so that signing
// runs its real network path offline and verification checks real
// cryptography against the local trust.
package attesttest

import (
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-openapi/runtime"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/sigstore/rekor/pkg/types"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// FirstLogIndex is the log index of the first entry the Rekor stand-in logs.
const FirstLogIndex = 7001

// Sigstore is a local Sigstore: an httptest Fulcio that certifies any
// key for one fixed identity, and an httptest Rekor that logs hashedrekord
// entries, signing entry timestamps and checkpoints with a
// VirtualSigstore's log key. The real Sign code path talks to both.
type Sigstore struct {
	t         *testing.T
	vs        *ca.VirtualSigstore
	fulcioCA  *root.FulcioCertificateAuthority
	interKey  crypto.Signer
	id        struct{ subject, issuer string }
	token     string
	fulcio    *httptest.Server
	rekor     *httptest.Server
	logIndex  atomic.Int64
	sawTokens atomic.Int64
}

// trust is the trusted material of a Sigstore: its Fulcio CA and
// the VirtualSigstore's Rekor log.
type trust struct {
	root.BaseTrustedMaterial
	ts *Sigstore
}

func (tt *trust) FulcioCertificateAuthorities() []root.CertificateAuthority {
	return []root.CertificateAuthority{tt.ts.fulcioCA}
}

func (tt *trust) RekorLogs() map[string]*root.TransparencyLog { return tt.ts.vs.RekorLogs() }

func New(t *testing.T) *Sigstore {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	rootCert, rootKey, err := ca.GenerateRootCa()
	if err != nil {
		t.Fatal(err)
	}
	inter, interKey, err := ca.GenerateFulcioIntermediate(rootCert, rootKey)
	if err != nil {
		t.Fatal(err)
	}
	ts := &Sigstore{
		t: t, vs: vs, interKey: interKey,
		fulcioCA: &root.FulcioCertificateAuthority{
			Root: rootCert, Intermediates: []*x509.Certificate{inter},
			ValidityPeriodStart: time.Now().Add(-time.Hour), ValidityPeriodEnd: time.Now().Add(time.Hour),
			URI: "https://fulcio.localhost",
		},
		id:    struct{ subject, issuer string }{"https://github.com/acme/tools/.github/workflows/pin.yml@refs/heads/main", "https://token.actions.githubusercontent.com"},
		token: TestJWT("repo:acme/tools:ref:refs/heads/main"),
	}
	ts.logIndex.Store(FirstLogIndex - 1)
	ts.fulcio = httptest.NewServer(http.HandlerFunc(ts.serveFulcio))
	ts.rekor = httptest.NewServer(http.HandlerFunc(ts.serveRekor))
	t.Cleanup(ts.fulcio.Close)
	t.Cleanup(ts.rekor.Close)
	return ts
}

// TrustedMaterial is what a verifier of this local Sigstore trusts: its
// Fulcio CA and Rekor log, and no CT log (the stand-in embeds no SCT).
func (ts *Sigstore) TrustedMaterial() root.TrustedMaterial { return &trust{ts: ts} }

// TrustedRootJSON is TrustedMaterial as a trusted_root.json file's text.
func (ts *Sigstore) TrustedRootJSON() []byte {
	ts.t.Helper()
	// VirtualSigstore's log ID is the hex text of the key hash; the file
	// holds the raw hash, as Sigstore's trusted roots do.
	logs := map[string]*root.TransparencyLog{}
	for k, l := range ts.vs.RekorLogs() {
		c := *l
		id, err := hex.DecodeString(string(l.ID))
		if err != nil {
			ts.t.Fatal(err)
		}
		c.ID = id
		logs[k] = &c
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, []root.CertificateAuthority{ts.fulcioCA}, nil, nil, logs)
	if err != nil {
		ts.t.Fatal(err)
	}
	b, err := tr.MarshalJSON()
	if err != nil {
		ts.t.Fatal(err)
	}
	return b
}

// FulcioURL, RekorURL and Token are what a signer of this Sigstore uses.
func (ts *Sigstore) FulcioURL() string { return ts.fulcio.URL }

// RekorURL is the Rekor stand-in's URL.
func (ts *Sigstore) RekorURL() string { return ts.rekor.URL }

// Token is the OIDC token the Fulcio stand-in accepts.
func (ts *Sigstore) Token() string { return ts.token }

// Client is an HTTP client for the stand-ins.
func (ts *Sigstore) Client() *http.Client { return ts.fulcio.Client() }

// Subject and Issuer are the identity the Fulcio stand-in certifies.
func (ts *Sigstore) Subject() string { return ts.id.subject }

// Issuer is the OIDC issuer the Fulcio stand-in certifies.
func (ts *Sigstore) Issuer() string { return ts.id.issuer }

// Logged is how many entries the Rekor stand-in has logged.
func (ts *Sigstore) Logged() int64 { return ts.logIndex.Load() - FirstLogIndex + 1 }

// TokensSeen is how many certificate requests carried the right token.
func (ts *Sigstore) TokensSeen() int64 { return ts.sawTokens.Load() }

// TestJWT is an unsigned token with a subject: Fulcio's client reads the
// subject for its proof of possession; the stand-in checks the token as a
// whole, as Fulcio would check its signature.
func TestJWT(sub string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none"}`)) + "." + enc([]byte(`{"sub":"`+sub+`"}`)) + ".sig"
}

func (ts *Sigstore) serveFulcio(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/v2/signingCert" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+ts.token {
		http.Error(w, "bad token", http.StatusUnauthorized)
		return
	}
	ts.sawTokens.Add(1)
	var req struct {
		PublicKeyRequest struct {
			PublicKey struct{ Content string } `json:"publicKey"`
		} `json:"publicKeyRequest"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey([]byte(req.PublicKeyRequest.PublicKey.Content))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	san, _ := url.Parse(ts.id.subject)
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()),
		URIs:         []*url.URL{san},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(10 * time.Minute),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		ExtraExtensions: []pkix.Extension{{
			Id: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 1}, Value: []byte(ts.id.issuer),
		}},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ts.fulcioCA.Intermediates[0], pub, ts.interKey)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	pemOf := func(b []byte) string { return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: b})) }
	resp := map[string]any{"signedCertificateEmbeddedSct": map[string]any{"chain": map[string]any{
		"certificates": []string{pemOf(der), pemOf(ts.fulcioCA.Intermediates[0].Raw), pemOf(ts.fulcioCA.Root.Raw)},
	}}}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func (ts *Sigstore) serveRekor(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/v1/log/entries" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	pe, err := models.UnmarshalProposedEntry(r.Body, runtime.JSONConsumer())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if pe.Kind() != "hashedrekord" {
		http.Error(w, "want hashedrekord", http.StatusBadRequest)
		return
	}
	ei, err := types.UnmarshalEntry(pe)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	body, err := types.CanonicalizeEntry(r.Context(), ei)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	logID, err := ts.vs.RekorLogID()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	idx := ts.logIndex.Add(1)
	now := time.Now().Unix()
	b64 := base64.StdEncoding.EncodeToString(body)
	set, err := ts.vs.RekorSignPayload(tlog.RekorPayload{Body: b64, IntegratedTime: now, LogIndex: idx, LogID: logID})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	proof, err := ts.vs.GetInclusionProof(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	uuid := "24296fb24b8ad77a" + strings.Repeat("0", 48)
	entry := models.LogEntryAnon{
		Body: b64, IntegratedTime: &now, LogID: &logID, LogIndex: &idx,
		Verification: &models.LogEntryAnonVerification{SignedEntryTimestamp: set, InclusionProof: proof},
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", uuid)
	w.Header().Set("Location", "/api/v1/log/entries/"+uuid)
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]models.LogEntryAnon{uuid: entry})
}
