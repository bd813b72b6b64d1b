package attest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/lock"
)

// communityDir is the shared corpus sample, relative to this package.
const communityDir = "../../../shared/community-sample"

// sample is one signed lock of the community sample.
type sample struct {
	lockPath string
	bundle   []byte
	st       Statement
}

// communitySamples reads the signed locks of the sample and the identity
// that signs them, skipping when the shared corpus is absent.
func communitySamples(t testing.TB) ([]sample, Identity) {
	t.Helper()
	if _, err := os.Stat(communityDir); err != nil {
		t.Skipf("community sample absent (%s): %v", communityDir, err)
	}
	var atts []struct {
		ID       string `json:"id"`
		Identity string `json:"certificate_identity"`
		Issuer   string `json:"oidc_issuer"`
	}
	raw, err := os.ReadFile(filepath.Join(communityDir, "attesters.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &atts); err != nil || len(atts) != 1 {
		t.Fatalf("attesters.json: %v (%d attesters)", err, len(atts))
	}
	id := Identity{Subject: atts[0].Identity, Issuer: atts[0].Issuer}
	locks, err := filepath.Glob(filepath.Join(communityDir, "locks", "*", "*", "*", atts[0].ID+".lock"))
	if err != nil || len(locks) != 3 {
		t.Fatalf("want 3 sample locks, got %d (%v)", len(locks), err)
	}
	var out []sample
	for _, p := range locks {
		l, err := lock.ReadFile(p)
		if err != nil {
			t.Fatalf("read %s: %v", p, err)
		}
		if err := lock.Verify(l); err != nil {
			t.Fatalf("lock %s does not reproduce its digests: %v", p, err)
		}
		b, err := os.ReadFile(p + ".sigstore")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sample{lockPath: p, bundle: b, st: Statement{Coordinate: coordinateOf(t, p), Digest: l.OverallDigest}})
	}
	return out, id
}

// coordinateOf derives the coordinate from a corpus lock's directory:
// locks/<ecosystem>/<package, "/" as "__">/<version>/<attester>.lock.
func coordinateOf(t testing.TB, lockPath string) string {
	version := filepath.Base(filepath.Dir(lockPath))
	pkg := filepath.Base(filepath.Dir(filepath.Dir(lockPath)))
	eco := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(lockPath))))
	c := eco + ":" + strings.ReplaceAll(pkg, "__", "/") + "@" + version
	if err := CheckCoordinate(c); err != nil {
		t.Fatalf("sample coordinate: %v", err)
	}
	return c
}

func publicGood(t testing.TB) *Root {
	t.Helper()
	r, err := PublicGoodRoot()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCommunitySamplesVerify(t *testing.T) {
	samples, id := communitySamples(t)
	r := publicGood(t)
	coords := map[string]bool{}
	for _, s := range samples {
		res, err := r.VerifyResult(s.bundle, s.st, id)
		if err != nil {
			t.Errorf("%s: %v", s.st, err)
			continue
		}
		if res.LogIndex <= 0 {
			t.Errorf("%s: log index %d", s.st, res.LogIndex)
		}
		coords[s.st.Coordinate] = true
	}
	for _, c := range []string{
		"npm:@modelcontextprotocol/server-everything@2026.8.31",
		"npm:@modelcontextprotocol/server-memory@2026.8.31",
		"pypi:mcp-server-time@2026.8.18",
	} {
		if !coords[c] {
			t.Errorf("coordinate %s not among the verified samples", c)
		}
	}
}

// TestLoadRootPublicGood checks that the embedded file also loads from
// disk, the path a user's newer trusted_root.json takes.
func TestLoadRootPublicGood(t *testing.T) {
	samples, id := communitySamples(t)
	r, err := LoadRoot("trusted-root-public-good.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Verify(samples[0].bundle, samples[0].st, id); err != nil {
		t.Fatal(err)
	}
}

func TestCommunitySamplesRefused(t *testing.T) {
	samples, id := communitySamples(t)
	r := publicGood(t)
	s, other := samples[0], samples[1]
	edited := s.st
	edited.Digest = "sha256:" + strings.Repeat("0", 64)
	recoord := s.st
	recoord.Coordinate = other.st.Coordinate
	// One second later: still inside the certificate's validity, so only
	// the signed entry timestamp can catch it.
	tampered := edit(t, s.bundle, func(b map[string]any) {
		e := b["verificationMaterial"].(map[string]any)["tlogEntries"].([]any)[0].(map[string]any)
		var n int64
		fmt.Sscan(e["integratedTime"].(string), &n)
		e["integratedTime"] = fmt.Sprint(n + 1)
	})
	// Another signature: the other lock's, a valid signature of another digest.
	resigned := edit(t, s.bundle, func(b map[string]any) {
		var o map[string]any
		if err := json.Unmarshal(other.bundle, &o); err != nil {
			t.Fatal(err)
		}
		b["messageSignature"].(map[string]any)["signature"] = o["messageSignature"].(map[string]any)["signature"]
	})
	noProof := edit(t, s.bundle, func(b map[string]any) {
		delete(b["verificationMaterial"].(map[string]any)["tlogEntries"].([]any)[0].(map[string]any), "inclusionProof")
	})
	dsse := edit(t, s.bundle, func(b map[string]any) {
		delete(b, "messageSignature")
		b["dsseEnvelope"] = map[string]any{"payload": "e30=", "payloadType": "application/vnd.in-toto+json", "signatures": []any{map[string]any{"sig": "AAAA"}}}
	})
	v02 := edit(t, s.bundle, func(b map[string]any) { b["mediaType"] = "application/vnd.dev.sigstore.bundle+json;version=0.2" })
	cases := []struct {
		name   string
		bundle []byte
		st     Statement
		id     Identity
		want   string
	}{
		{"edited digest", s.bundle, edited, id, "signs another statement"},
		{"other coordinate", s.bundle, recoord, id, "signs another statement"},
		{"bundle of another lock", other.bundle, s.st, id, "signs another statement"},
		{"wrong identity", s.bundle, s.st, Identity{Subject: id.Subject + "x", Issuer: id.Issuer}, "wrong identity"},
		{"identity prefix", s.bundle, s.st, Identity{Subject: "https://github.com/DataScience-EngineeringExperts/", Issuer: id.Issuer}, "wrong identity"},
		{"wrong issuer", s.bundle, s.st, Identity{Subject: id.Subject, Issuer: "https://accounts.google.com"}, "wrong OIDC issuer"},
		{"no identity", s.bundle, s.st, Identity{}, "required"},
		{"truncated bundle", s.bundle[:len(s.bundle)/2], s.st, id, "read bundle"},
		{"tampered integrated time", tampered, s.st, id, "verify signature"},
		{"signature of another lock", resigned, s.st, id, "verify signature"},
		{"no inclusion proof", noProof, s.st, id, "inclusion proof"},
		{"DSSE envelope", dsse, s.st, id, "messageSignature"},
		{"bundle v0.2", v02, s.st, id, "media type"},
		{"empty", nil, s.st, id, "read bundle"},
		{"too large", append(bytes.Repeat([]byte(" "), MaxBundleBytes), s.bundle...), s.st, id, "larger than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := r.Verify(c.bundle, c.st, c.id)
			if err == nil {
				t.Fatal("verified")
			}
			t.Log(err)
			if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line containing %q", err, c.want)
			}
		})
	}
}

// edit returns the bundle b decoded, changed by f and encoded again.
func edit(t *testing.T, b []byte, f func(map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCanonical(t *testing.T) {
	cases := []struct {
		st   Statement
		want string
	}{
		{Statement{"npm:@a/b@1.0.0", "sha256:ab"}, `{"_type":"mcp-warden-lock-digest/v2","coordinate":"npm:@a/b@1.0.0","digest":"sha256:ab"}`},
		{Statement{"x\"\\\n\u007fé😀<>&", ""}, `{"_type":"mcp-warden-lock-digest/v2","coordinate":"x\"\\\n\u007f\u00e9\ud83d\ude00<>&","digest":""}`},
	}
	for _, c := range cases {
		if got := string(c.st.Canonical()); got != c.want {
			t.Errorf("Canonical(%v) =\n %s\nwant\n %s", c.st, got, c.want)
		}
	}
}

func TestCheckCoordinate(t *testing.T) {
	for _, c := range []string{"npm:@scope/pkg@1.2.3", "npm:pkg@0.0.1-rc.1", "pypi:mcp-server-time@2026.8.18", "pypi:Foo_bar@1.0.post1"} {
		if err := CheckCoordinate(c); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
	for _, c := range []string{"", "npm:", "npm:pkg", "npm:pkg@", "npm:@scope@1.0", "npm:pkg@^1.0", "npm:pkg@1.0 ", "cargo:x@1", "pypi:foo@>=1", "npm:@/x@1", "pypi:-x@1", "npm:pkg@latest tag"} {
		if err := CheckCoordinate(c); err == nil {
			t.Errorf("%q accepted", c)
		}
	}
}

// FuzzParseBundle feeds arbitrary bytes to the bundle parser and the
// verifier: they must return an error, never panic, for any input.
func FuzzParseBundle(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(communityDir, "locks/pypi/mcp-server-time/2026.8.18/dse-nightly.lock.sigstore")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`))
	f.Add([]byte(`{}`))
	r, err := PublicGoodRoot()
	if err != nil {
		f.Fatal(err)
	}
	id := Identity{Subject: "s", Issuer: "i"}
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := ParseBundle(b); err != nil {
			return
		}
		_ = r.Verify(b, Statement{Coordinate: "npm:a@1", Digest: "sha256:00"}, id)
	})
}

// TestPublicGoodRequiresSCT: the public-good root lists CT logs, so a
// Fulcio certificate without an embedded SCT must not verify against it.
func TestPublicGoodRequiresSCT(t *testing.T) {
	if !publicGood(t).requireSCT {
		t.Fatal("the public-good root does not require SCTs")
	}
}
