package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"time"
)

// assertionLifetime is how long a client assertion is valid: RFC 7523 asks
// for a short expiry, and one assertion is used for one token request.
const assertionLifetime = 2 * time.Minute

// SigningKey signs RFC 7523 client assertions (private_key_jwt).
type SigningKey struct {
	alg string
	key crypto.Signer
	// now is the clock (tests pin it).
	now func() time.Time
}

// parsePrivateKeyPEM reads one PEM private key block: PKCS #8, SEC 1 EC,
// and PKCS #1 RSA when rsa is set. what names the key in errors ("the DPoP
// key"), kind what its block should have been; no error quotes the key.
func parsePrivateKeyPEM(pemText []byte, what, kind string, rsa bool) (any, error) {
	block, _ := pem.Decode(pemText)
	if block == nil {
		return nil, fmt.Errorf("%s is not PEM", what)
	}
	var key any
	var err error
	switch {
	case block.Type == "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case block.Type == "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case block.Type == "RSA PRIVATE KEY" && rsa:
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("%s's PEM block is %s, not %s", what, quote(block.Type), kind)
	}
	if err != nil {
		return nil, fmt.Errorf("%s cannot be parsed", what)
	}
	return key, nil
}

// ParseSigningKey reads a PEM private key (PKCS #8, SEC 1 EC or PKCS #1
// RSA) and the JWS algorithm to sign with: "" picks the key's natural one
// (ES256/ES384/ES512 by curve, RS256 for RSA); allowed, when not empty, is
// the metadata's token_endpoint_auth_signing_alg_values_supported. Errors
// never quote the key.
func ParseSigningKey(pemText []byte, alg string, allowed []string) (*SigningKey, error) {
	key, err := parsePrivateKeyPEM(pemText, "the private key", "a private key", true)
	if err != nil {
		return nil, err
	}
	var natural string
	var ok bool
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			natural = "ES256"
		case elliptic.P384():
			natural = "ES384"
		case elliptic.P521():
			natural = "ES512"
		default:
			return nil, errors.New("the EC private key's curve is not P-256, P-384 or P-521")
		}
		ok = alg == "" || alg == natural
	case *rsa.PrivateKey:
		natural = "RS256"
		ok = alg == "" || alg == "RS256" || alg == "RS384" || alg == "RS512" || alg == "PS256"
	default:
		return nil, errors.New("the private key is neither EC nor RSA")
	}
	if !ok {
		return nil, fmt.Errorf("signing algorithm %s does not fit the key (use %s)", quote(alg), natural)
	}
	if alg == "" {
		alg = natural
		if len(allowed) > 0 && !slices.Contains(allowed, alg) {
			if _, isRSA := key.(*rsa.PrivateKey); isRSA {
				for _, a := range []string{"PS256", "RS384", "RS512"} {
					if slices.Contains(allowed, a) {
						alg = a
						break
					}
				}
			}
		}
	}
	if len(allowed) > 0 && !slices.Contains(allowed, alg) {
		return nil, fmt.Errorf("the authorization server does not accept %s client assertions (it lists %s)", alg, clip(fmt.Sprint(allowed)))
	}
	return &SigningKey{alg: alg, key: key.(crypto.Signer), now: time.Now}, nil
}

// Alg is the JWS algorithm the key signs with.
func (k *SigningKey) Alg() string { return k.alg }

// Assertion builds and signs a client assertion (RFC 7523 §3): iss and sub
// the client id, aud the authorization server's issuer, a short expiry and
// a fresh jti.
func (k *SigningKey) Assertion(iss, sub, aud string) (string, error) {
	now := k.now()
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	claims := map[string]any{
		"iss": iss,
		"sub": sub,
		"aud": aud,
		"iat": now.Unix(),
		"exp": now.Add(assertionLifetime).Unix(),
		"jti": base64.RawURLEncoding.EncodeToString(jti),
	}
	return k.sign(claims)
}

func (k *SigningKey) sign(claims map[string]any) (string, error) {
	header, err := json.Marshal(map[string]string{"alg": k.alg, "typ": "JWT"})
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(payload)
	var h crypto.Hash
	switch k.alg {
	case "ES256", "RS256", "PS256":
		h = crypto.SHA256
	case "ES384", "RS384":
		h = crypto.SHA384
	case "ES512", "RS512":
		h = crypto.SHA512
	}
	digest := hash(h, []byte(input))
	var sig []byte
	switch key := k.key.(type) {
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, key, digest)
		if err != nil {
			return "", err
		}
		// JWS wants r and s as fixed-size big-endian integers, not DER.
		size := (key.Curve.Params().BitSize + 7) / 8
		sig = make([]byte, 2*size)
		r.FillBytes(sig[:size])
		s.FillBytes(sig[size:])
	case *rsa.PrivateKey:
		if k.alg == "PS256" {
			sig, err = rsa.SignPSS(rand.Reader, key, h, digest, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
		} else {
			sig, err = rsa.SignPKCS1v15(rand.Reader, key, h, digest)
		}
		if err != nil {
			return "", err
		}
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

func hash(h crypto.Hash, data []byte) []byte {
	switch h {
	case crypto.SHA384:
		s := sha512.Sum384(data)
		return s[:]
	case crypto.SHA512:
		s := sha512.Sum512(data)
		return s[:]
	}
	s := sha256.Sum256(data)
	return s[:]
}
