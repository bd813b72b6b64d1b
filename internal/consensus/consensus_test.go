package consensus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/surface"
)

// fakeVerifier accepts a bundle that is fakeBundle of the statement and
// attester: it stands in for Sigstore where tests need locks that no
// public-good signature covers (the end-to-end tests in internal/cli use
// the real verifier on the real sample).
type fakeVerifier struct{}

func fakeBundle(coord, digest string, a Attester) []byte {
	sum := sha256.Sum256([]byte(coord + "\n" + digest + "\n" + a.Identity + "\n" + a.Issuer))
	return []byte(hex.EncodeToString(sum[:]))
}

func (fakeVerifier) Verify(bundle []byte, coord, digest string, a Attester) error {
	if string(bundle) != string(fakeBundle(coord, digest, a)) {
		return errors.New("signature does not match")
	}
	return nil
}

const coord = "npm:@scope/pkg@1.0.0"

var (
	alice = Attester{ID: "alice", Identity: "https://github.com/a/locks/.github/workflows/attest.yml@refs/heads/main", Issuer: "https://token.actions.githubusercontent.com"}
	bob   = Attester{ID: "bob", Identity: "https://github.com/b/locks/.github/workflows/attest.yml@refs/heads/main", Issuer: "https://token.actions.githubusercontent.com"}
)

// buildLock builds a level-4 lock of a surface with the named tools,
// launched by launch (the attester's sandbox launch differs from yours).
func buildLock(t *testing.T, launch string, tools ...string) *lock.Lock {
	t.Helper()
	s := &surface.Surface{Server: surface.Server{Command: launch, Args: []string{"--stdio"}}}
	for _, name := range tools {
		s.Tools = append(s.Tools, surface.Tool{Name: name, Description: jsonv.NewString("does " + name),
			InputSchema: jsonv.NewObject(jsonv.M("type", jsonv.NewString("object")))})
	}
	l, err := lock.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	l.WardenVersion = "test"
	l.Pin = lock.NewPin(lock.PinInfo{Version: "test", ProtocolVersion: "2025-06-18", Now: time.Unix(0, 0)}, l.OverallDigest)
	return l
}

// put writes l and a bundle for it as attester a's entry for coord.
func put(t *testing.T, corpus string, a Attester, l *lock.Lock, bundle []byte) {
	t.Helper()
	dir := filepath.Join(corpus, "locks", "npm", "@scope__pkg", "1.0.0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, a.ID+".lock"), lock.Marshal(l), 0o644); err != nil {
		t.Fatal(err)
	}
	if bundle == nil {
		bundle = fakeBundle(coord, l.OverallDigest, a)
	}
	if err := os.WriteFile(filepath.Join(dir, a.ID+".lock.sigstore"), bundle, 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, o Options, observed *lock.Lock) *Result {
	t.Helper()
	if o.Verifier == nil {
		o.Verifier = fakeVerifier{}
	}
	if o.Coordinate == "" && o.Launch == nil {
		o.Coordinate = coord
	}
	return Prepare(context.Background(), o).Compare(observed)
}

func TestVerdicts(t *testing.T) {
	observed := buildLock(t, "npx", "a", "b")
	same := buildLock(t, "node", "a", "b") // another launch, the same surface
	other := buildLock(t, "node", "a", "b", "exfiltrate")
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		opts  Options
		want  Verdict
		exit  int
	}{
		{"match", func(t *testing.T, d string) { put(t, d, alice, same, nil); put(t, d, bob, same, nil) },
			Options{Attesters: []Attester{alice, bob}}, Match, 0},
		{"insufficient by default", func(t *testing.T, d string) { put(t, d, alice, same, nil) },
			Options{Attesters: []Attester{alice}}, Insufficient, 0},
		{"insufficient blocks when consensus required", func(t *testing.T, d string) { put(t, d, alice, same, nil) },
			Options{Attesters: []Attester{alice}, RequireConsensus: true}, Insufficient, 1},
		{"match with one required", func(t *testing.T, d string) { put(t, d, alice, same, nil) },
			Options{Attesters: []Attester{alice}, MinAttesters: 1}, Match, 0},
		{"mismatch", func(t *testing.T, d string) { put(t, d, alice, other, nil) },
			Options{Attesters: []Attester{alice}, MinAttesters: 1}, Mismatch, 1},
		{"split", func(t *testing.T, d string) { put(t, d, alice, same, nil); put(t, d, bob, other, nil) },
			Options{Attesters: []Attester{alice, bob}, MinAttesters: 1}, Split, 1},
		{"split among themselves", func(t *testing.T, d string) {
			put(t, d, alice, buildLock(t, "node", "x"), nil)
			put(t, d, bob, other, nil)
		}, Options{Attesters: []Attester{alice, bob}}, Split, 1},
		{"untrusted attester's lock is ignored", func(t *testing.T, d string) { put(t, d, alice, same, nil); put(t, d, bob, other, nil) },
			Options{Attesters: []Attester{alice}, MinAttesters: 1}, Match, 0},
		{"novel", func(t *testing.T, d string) { put(t, d, bob, same, nil) },
			Options{Attesters: []Attester{alice}}, Novel, 0},
		{"novel blocks when consensus required", func(t *testing.T, d string) { os.MkdirAll(filepath.Join(d, "locks"), 0o755) },
			Options{Attesters: []Attester{alice}, RequireConsensus: true}, Novel, 1},
		{"bad signature", func(t *testing.T, d string) { put(t, d, alice, same, []byte("forged")) },
			Options{Attesters: []Attester{alice}, MinAttesters: 1}, Unverifiable, 2},
		{"wrong identity", func(t *testing.T, d string) { put(t, d, alice, same, nil) },
			Options{Attesters: []Attester{{ID: "alice", Identity: bob.Identity, Issuer: bob.Issuer}}, MinAttesters: 1}, Unverifiable, 2},
		{"a bundle of another lock", func(t *testing.T, d string) { put(t, d, alice, same, fakeBundle(coord, other.OverallDigest, alice)) },
			Options{Attesters: []Attester{alice}, MinAttesters: 1}, Unverifiable, 2},
		{"edited digest", func(t *testing.T, d string) {
			l := buildLock(t, "node", "a", "b")
			l.OverallDigest = other.OverallDigest // and the bundle signs it
			put(t, d, alice, l, nil)
		}, Options{Attesters: []Attester{alice}, MinAttesters: 1}, Unverifiable, 2},
		{"missing bundle", func(t *testing.T, d string) {
			put(t, d, alice, same, nil)
			os.Remove(filepath.Join(d, "locks/npm/@scope__pkg/1.0.0/alice.lock.sigstore"))
		}, Options{Attesters: []Attester{alice}, MinAttesters: 1}, Unverifiable, 2},
		{"no attester", func(t *testing.T, d string) { put(t, d, alice, same, nil) }, Options{}, UnpinnedTrust, 2},
		{"a lock that is a symbolic link", func(t *testing.T, d string) {
			elsewhere := t.TempDir()
			put(t, elsewhere, alice, same, nil)
			put(t, d, alice, same, nil)
			p := filepath.Join(d, "locks/npm/@scope__pkg/1.0.0/alice.lock")
			os.Remove(p)
			if err := os.Symlink(filepath.Join(elsewhere, "locks/npm/@scope__pkg/1.0.0/alice.lock"), p); err != nil {
				t.Fatal(err)
			}
		}, Options{Attesters: []Attester{alice}, MinAttesters: 1}, Unverifiable, 2},
		{"one id with two identities", func(t *testing.T, d string) { put(t, d, alice, same, nil) },
			Options{Attesters: []Attester{alice, {ID: "alice", Identity: bob.Identity, Issuer: bob.Issuer}}}, UnpinnedTrust, 2},
		{"attesters file inside the corpus", func(t *testing.T, d string) {
			put(t, d, alice, same, nil)
			os.WriteFile(filepath.Join(d, "attesters.json"), []byte(`[{"id":"alice","certificate_identity":"`+alice.Identity+`","oidc_issuer":"`+alice.Issuer+`"}]`), 0o644)
		}, Options{AttestersFile: "attesters.json", MinAttesters: 1}, UnpinnedTrust, 2},
		{"unresolved launch", func(t *testing.T, d string) { put(t, d, alice, same, nil) },
			Options{Attesters: []Attester{alice}, Launch: []string{"node", "./server.js"}}, Unresolved, 2},
		{"missing corpus", nil, Options{Attesters: []Attester{alice}}, Unreachable, 2},
		{"url without a commit", nil, Options{Corpus: "https://example.invalid/corpus.git", Attesters: []Attester{alice}}, UnpinnedTrust, 2},
		{"a branch as ref", nil, Options{Corpus: "https://example.invalid/corpus.git", Ref: "main", Attesters: []Attester{alice}}, UnpinnedTrust, 2},
		{"newer level", func(t *testing.T, d string) {
			put(t, d, alice, same, nil)
			p := filepath.Join(d, "locks/npm/@scope__pkg/1.0.0/alice.lock")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), `"schema_version": 4`, `"schema_version": 5`, 1)), 0o644)
		}, Options{Attesters: []Attester{alice}, MinAttesters: 1}, SchemaMismatch, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.setup != nil {
				tc.setup(t, dir)
			} else {
				dir = filepath.Join(dir, "absent")
			}
			o := tc.opts
			if o.Corpus == "" {
				o.Corpus = dir
			}
			if o.AttestersFile != "" {
				o.AttestersFile = filepath.Join(dir, o.AttestersFile)
			}
			r := run(t, o, observed)
			if r.Verdict != tc.want || r.Exit() != tc.exit {
				t.Fatalf("verdict %s exit %d (%s), want %s exit %d", r.Verdict, r.Exit(), r.Reason, tc.want, tc.exit)
			}
			if tc.want == Match && (r.LevelText() != "level 4" || r.Agreeing < 1) {
				t.Errorf("match at %q with %d agreeing", r.LevelText(), r.Agreeing)
			}
		})
	}
}

// TestLevel3 holds that a level-3 attestation is compared with the
// observed entries rebuilt at level 3, and that the comparison still sees
// a changed tool.
func TestLevel3(t *testing.T) {
	observed := buildLock(t, "npx", "a", "b")
	// v3 is l as a level-3 producer writes it: the tool entries without
	// the v4 commitments, every digest recomputed.
	v3 := func(l *lock.Lock) *lock.Lock {
		c := *l
		c.SchemaVersion = 3
		c.Tools = nil
		for _, tool := range l.Tools {
			tool.HasV4 = false
			tool.AnnotationsHash, tool.OutputSchemaHash, tool.OutputSchemaSkeleton = "", "", jsonv.Raw{}
			d, err := canon.Hash(lock.ToolBody(tool, 3))
			if err != nil {
				t.Fatal(err)
			}
			tool.EntryDigest = d
			c.Tools = append(c.Tools, tool)
		}
		var err error
		if c.OverallDigest, err = lock.OverallDigest(&c); err != nil {
			t.Fatal(err)
		}
		if err := lock.Verify(&c); err != nil {
			t.Fatal(err)
		}
		return &c
	}
	dir := t.TempDir()
	put(t, dir, alice, v3(buildLock(t, "node", "a", "b")), nil)
	r := run(t, Options{Corpus: dir, Attesters: []Attester{alice}, MinAttesters: 1}, observed)
	if r.Verdict != Match || r.LevelText() != "level 3" {
		t.Fatalf("%s at %q: %s", r.Verdict, r.LevelText(), r.Reason)
	}
	dir = t.TempDir()
	put(t, dir, alice, v3(buildLock(t, "node", "a", "c")), nil)
	if r := run(t, Options{Corpus: dir, Attesters: []Attester{alice}, MinAttesters: 1}, observed); r.Verdict != Mismatch {
		t.Fatalf("changed tool at level 3: %s", r.Verdict)
	}
	if _, err := LiveSurfaceDigest(observed, 2); err == nil {
		t.Error("level 2 rebuilt")
	}
}

// TestCorpusURL fetches a corpus from a local bare repository by file://
// URL at an exact commit, and refuses a commit the repository lacks.
func TestCorpusURL(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	observed := buildLock(t, "npx", "a")
	work := t.TempDir()
	put(t, work, alice, buildLock(t, "node", "a"), nil)
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git(work, "init", "-q")
	git(work, "add", ".")
	git(work, "commit", "-q", "-m", "corpus")
	sha := git(work, "rev-parse", "HEAD")
	bare := filepath.Join(t.TempDir(), "corpus.git")
	git(work, "clone", "-q", "--bare", work, bare)
	url := "file://" + bare
	r := run(t, Options{Corpus: url, Ref: sha, Attesters: []Attester{alice}, MinAttesters: 1}, observed)
	if r.Verdict != Match || r.Ref != sha {
		t.Fatalf("by URL: %s (%s)", r.Verdict, r.Reason)
	}
	r = run(t, Options{Corpus: url, Ref: strings.Repeat("0", 40), Attesters: []Attester{alice}}, observed)
	if r.Verdict != Unreachable {
		t.Fatalf("absent commit: %s (%s)", r.Verdict, r.Reason)
	}
	// A local checkout named with --corpus-ref must be at that commit.
	if r := run(t, Options{Corpus: work, Ref: sha, Attesters: []Attester{alice}, MinAttesters: 1}, observed); r.Verdict != Match {
		t.Fatalf("local at ref: %s (%s)", r.Verdict, r.Reason)
	}
	if r := run(t, Options{Corpus: work, Ref: strings.Repeat("1", 40), Attesters: []Attester{alice}}, observed); r.Verdict != UnpinnedTrust {
		t.Fatalf("local at another ref: %s (%s)", r.Verdict, r.Reason)
	}
}

func TestParseAttester(t *testing.T) {
	a, err := ParseAttester("dse-nightly=https://github.com/o/r/.github/workflows/attest.yml@refs/heads/main@https://token.actions.githubusercontent.com")
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != "dse-nightly" || a.Identity != "https://github.com/o/r/.github/workflows/attest.yml@refs/heads/main" || a.Issuer != "https://token.actions.githubusercontent.com" {
		t.Errorf("%+v", a)
	}
	for _, s := range []string{"", "x", "x=y", "=a@https://i", "../x=a@https://i", "x=@https://i", "x=a@http://i", "x=a b@https://i"} {
		if _, err := ParseAttester(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func FuzzParseAttester(f *testing.F) {
	f.Add("a=b@refs/heads/main@https://i")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAttester(s)
		if err != nil {
			return
		}
		if b, err := ParseAttester(a.ID + "=" + a.Identity + "@" + a.Issuer); err != nil || b != a {
			t.Fatalf("%q: %+v does not round-trip", s, a)
		}
	})
}

// FuzzReadAttestersFile holds that an attesters file either is refused or
// yields attesters that each parse back from their flag form.
func FuzzReadAttestersFile(f *testing.F) {
	f.Add([]byte(`[{"id":"a","certificate_identity":"x@refs/heads/main","oidc_issuer":"https://i"}]`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[{"id":"a","certificate_identity":"x","oidc_issuer":"https://u@h"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "attesters.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		as, err := ReadAttestersFile(p)
		if err != nil {
			return
		}
		for _, a := range as {
			if b, err := ParseAttester(a.ID + "=" + a.Identity + "@" + a.Issuer); err != nil || b != a {
				t.Fatalf("%+v does not round-trip: %v", a, err)
			}
		}
	})
}
