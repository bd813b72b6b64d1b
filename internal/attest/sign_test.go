package attest

import (
	"context"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/attest/attesttest"
)

func signOptions(ts *attesttest.Sigstore) SignOptions {
	return SignOptions{FulcioURL: ts.FulcioURL(), RekorURL: ts.RekorURL(), IDToken: ts.Token(), HTTPClient: ts.Client()}
}

func testID(ts *attesttest.Sigstore) Identity {
	return Identity{Subject: ts.Subject(), Issuer: ts.Issuer()}
}

func TestSignOfflineVerifies(t *testing.T) {
	ts := attesttest.New(t)
	st := Statement{Coordinate: "npm:@acme/tool@1.2.3", Digest: "sha256:" + strings.Repeat("ab", 32)}
	b, err := Sign(context.Background(), st, signOptions(ts))
	if err != nil {
		t.Fatal(err)
	}
	if ts.TokensSeen() != 1 {
		t.Fatalf("Fulcio saw the token %d times", ts.TokensSeen())
	}
	if strings.Contains(string(b), ts.Token()) {
		t.Fatal("the bundle contains the OIDC token")
	}
	r := NewRoot(ts.TrustedMaterial())
	res, err := r.VerifyResult(b, st, testID(ts))
	if err != nil {
		t.Fatalf("a freshly signed bundle does not verify: %v", err)
	}
	if res.LogIndex != attesttest.FirstLogIndex {
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
		{"tampered lock", tampered, testID(ts), "signs another statement"},
		{"swapped statement", swapped, testID(ts), "signs another statement"},
		{"other identity", st, Identity{Subject: testID(ts).Subject + "/x", Issuer: testID(ts).Issuer}, "wrong identity"},
		{"other issuer", st, Identity{Subject: testID(ts).Subject, Issuer: "https://accounts.google.com"}, "wrong OIDC issuer"},
	} {
		if err := r.Verify(b, c.st, c.id); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
	// The public-good root does not trust the local Fulcio and Rekor.
	if err := publicGood(t).Verify(b, st, testID(ts)); err == nil {
		t.Error("a bundle of the local Sigstore verifies against the public-good root")
	}
	// A second signature of the same statement is a new key, certificate
	// and log entry, and verifies as well.
	b2, err := Sign(context.Background(), st, signOptions(ts))
	if err != nil {
		t.Fatal(err)
	}
	if string(b2) == string(b) {
		t.Error("two signatures are identical")
	}
	if err := r.Verify(b2, st, testID(ts)); err != nil {
		t.Error(err)
	}
}

func TestSignRefusesBadInput(t *testing.T) {
	ts := attesttest.New(t)
	good := Statement{Coordinate: "npm:@acme/tool@1.2.3", Digest: "sha256:" + strings.Repeat("ab", 32)}
	noToken := signOptions(ts)
	noToken.IDToken = ""
	badToken := signOptions(ts)
	badToken.IDToken = attesttest.TestJWT("someone-else")
	for _, c := range []struct {
		name string
		st   Statement
		o    SignOptions
		want string
	}{
		{"bad coordinate", Statement{Coordinate: "npm:@acme/tool@^1", Digest: good.Digest}, signOptions(ts), "version must be exact"},
		{"bad digest", Statement{Coordinate: good.Coordinate, Digest: "sha256:AB"}, signOptions(ts), "not sha256"},
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
	if n := ts.Logged(); n != 0 {
		t.Errorf("Rekor logged %d entries for refused signings", n)
	}
}
