package attest

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
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

// testSigstore is a local Sigstore: an httptest Fulcio that certifies any
// key for one fixed identity, and an httptest Rekor that logs hashedrekord
// entries, signing entry timestamps and checkpoints with a
// VirtualSigstore's log key. The real Sign code path talks to both.
type testSigstore struct {
	t         *testing.T
	vs        *ca.VirtualSigstore
	fulcioCA  *root.FulcioCertificateAuthority
	interKey  crypto.Signer
	id        Identity
	token     string
	fulcio    *httptest.Server
	rekor     *httptest.Server
	logIndex  atomic.Int64
	sawTokens atomic.Int64
}

// testTrust is the trusted material of a testSigstore: its Fulcio CA and
// the VirtualSigstore's Rekor log.
type testTrust struct {
	root.BaseTrustedMaterial
	ts *testSigstore
}

func (tt *testTrust) FulcioCertificateAuthorities() []root.CertificateAuthority {
	return []root.CertificateAuthority{tt.ts.fulcioCA}
}

func (tt *testTrust) RekorLogs() map[string]*root.TransparencyLog { return tt.ts.vs.RekorLogs() }

func newTestSigstore(t *testing.T) *testSigstore {
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
	ts := &testSigstore{
		t: t, vs: vs, interKey: interKey,
		fulcioCA: &root.FulcioCertificateAuthority{
			Root: rootCert, Intermediates: []*x509.Certificate{inter},
			ValidityPeriodStart: time.Now().Add(-time.Hour), ValidityPeriodEnd: time.Now().Add(time.Hour),
			URI: "https://fulcio.localhost",
		},
		id:    Identity{Subject: "https://github.com/acme/tools/.github/workflows/pin.yml@refs/heads/main", Issuer: "https://token.actions.githubusercontent.com"},
		token: testJWT("repo:acme/tools:ref:refs/heads/main"),
	}
	ts.logIndex.Store(7000)
	ts.fulcio = httptest.NewServer(http.HandlerFunc(ts.serveFulcio))
	ts.rekor = httptest.NewServer(http.HandlerFunc(ts.serveRekor))
	t.Cleanup(ts.fulcio.Close)
	t.Cleanup(ts.rekor.Close)
	return ts
}

// root is the Root a verifier of this local Sigstore trusts. It has no CT
// log, so it does not require the SCT the public-good root requires.
func (ts *testSigstore) root() *Root { return &Root{tm: &testTrust{ts: ts}} }

func (ts *testSigstore) options() SignOptions {
	return SignOptions{FulcioURL: ts.fulcio.URL, RekorURL: ts.rekor.URL, IDToken: ts.token, HTTPClient: ts.fulcio.Client()}
}

// testJWT is an unsigned token with a subject: Fulcio's client reads the
// subject for its proof of possession; the stand-in checks the token as a
// whole, as Fulcio would check its signature.
func testJWT(sub string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none"}`)) + "." + enc([]byte(`{"sub":"`+sub+`"}`)) + ".sig"
}

func (ts *testSigstore) serveFulcio(w http.ResponseWriter, r *http.Request) {
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
	san, _ := url.Parse(ts.id.Subject)
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()),
		URIs:         []*url.URL{san},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(10 * time.Minute),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		ExtraExtensions: []pkix.Extension{{
			Id: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 1}, Value: []byte(ts.id.Issuer),
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

func (ts *testSigstore) serveRekor(w http.ResponseWriter, r *http.Request) {
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

func TestSignOfflineVerifies(t *testing.T) {
	ts := newTestSigstore(t)
	st := Statement{Coordinate: "npm:@acme/tool@1.2.3", Digest: "sha256:" + strings.Repeat("ab", 32)}
	b, err := Sign(context.Background(), st, ts.options())
	if err != nil {
		t.Fatal(err)
	}
	if ts.sawTokens.Load() != 1 {
		t.Fatalf("Fulcio saw the token %d times", ts.sawTokens.Load())
	}
	if strings.Contains(string(b), ts.token) {
		t.Fatal("the bundle contains the OIDC token")
	}
	r := ts.root()
	res, err := r.VerifyResult(b, st, ts.id)
	if err != nil {
		t.Fatalf("a freshly signed bundle does not verify: %v", err)
	}
	if res.LogIndex != 7001 {
		t.Errorf("log index %d, want 7001", res.LogIndex)
	}
	tampered := st
	tampered.Digest = "sha256:" + strings.Repeat("cd", 32)
	swapped := Statement{Coordinate: "npm:@acme/other@1.2.3", Digest: st.Digest}
	for _, c := range []struct {
		name string
		st   Statement
		id   Identity
		want string
	}{
		{"tampered lock", tampered, ts.id, "signs another statement"},
		{"swapped statement", swapped, ts.id, "signs another statement"},
		{"other identity", st, Identity{Subject: ts.id.Subject + "/x", Issuer: ts.id.Issuer}, "wrong identity"},
		{"other issuer", st, Identity{Subject: ts.id.Subject, Issuer: "https://accounts.google.com"}, "wrong OIDC issuer"},
	} {
		if err := r.Verify(b, c.st, c.id); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
	// The public-good root does not trust the local Fulcio and Rekor.
	if err := publicGood(t).Verify(b, st, ts.id); err == nil {
		t.Error("a bundle of the local Sigstore verifies against the public-good root")
	}
	// A second signature of the same statement is a new key, certificate
	// and log entry, and verifies as well.
	b2, err := Sign(context.Background(), st, ts.options())
	if err != nil {
		t.Fatal(err)
	}
	if string(b2) == string(b) {
		t.Error("two signatures are identical")
	}
	if err := r.Verify(b2, st, ts.id); err != nil {
		t.Error(err)
	}
}

func TestSignRefusesBadInput(t *testing.T) {
	ts := newTestSigstore(t)
	good := Statement{Coordinate: "npm:@acme/tool@1.2.3", Digest: "sha256:" + strings.Repeat("ab", 32)}
	noToken := ts.options()
	noToken.IDToken = ""
	badToken := ts.options()
	badToken.IDToken = testJWT("someone-else")
	for _, c := range []struct {
		name string
		st   Statement
		o    SignOptions
		want string
	}{
		{"bad coordinate", Statement{Coordinate: "npm:@acme/tool@^1", Digest: good.Digest}, ts.options(), "version must be exact"},
		{"bad digest", Statement{Coordinate: good.Coordinate, Digest: "sha256:AB"}, ts.options(), "not sha256"},
		{"no token", good, noToken, "no OIDC identity token"},
		{"refused token", good, badToken, "401"},
	} {
		_, err := Sign(context.Background(), c.st, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err %v, want one line with %q", c.name, err, c.want)
			continue
		}
		if c.o.IDToken != "" && strings.Contains(err.Error(), c.o.IDToken) {
			t.Errorf("%s: the error shows the token", c.name)
		}
	}
	if n := ts.logIndex.Load(); n != 7000 {
		t.Errorf("Rekor logged %d entries for refused signings", n-7000)
	}
}
