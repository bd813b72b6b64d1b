package lock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
)

// urlLock builds a valid lock for a streamable HTTP server.
func urlLock(t *testing.T, url string) *Lock {
	t.Helper()
	s := &surface.Surface{Server: surface.Server{URL: url}}
	l, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestVerifyServerBlock edits the stored launch while keeping
// command_digest, as a pull request could to show reviewers one launch
// while the digest pins another: Verify refuses each edit.
func TestVerifyServerBlock(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		lock func(t *testing.T) *Lock
		want string // empty: verifies
	}{
		{"stdio as built", func(t *testing.T) *Lock { return buildDemo(t) }, ""},
		{"url as built", func(t *testing.T) *Lock { return urlLock(t, "https://example.com/mcp") }, ""},
		{"command edited", func(t *testing.T) *Lock {
			l := buildDemo(t)
			l.Server.Command = "evil"
			return l
		}, "$.server.command_digest does not match the stored launch (server.command and server.args)"},
		{"argument edited", func(t *testing.T) *Lock {
			l := buildDemo(t)
			l.Server.Args[1] = "--other"
			return l
		}, "$.server.command_digest does not match"},
		{"argument added", func(t *testing.T) *Lock {
			l := buildDemo(t)
			l.Server.Args = append(l.Server.Args, "--x")
			return l
		}, "$.server.command_digest does not match"},
		{"arguments reordered", func(t *testing.T) *Lock {
			l := buildDemo(t)
			l.Server.Args[0], l.Server.Args[1] = l.Server.Args[1], l.Server.Args[0]
			return l
		}, "$.server.command_digest does not match"},
		{"url edited", func(t *testing.T) *Lock {
			l := urlLock(t, "https://example.com/mcp")
			l.Server.URL = str("https://evil.example/mcp")
			return l
		}, "$.server.command_digest does not match the stored launch (server.url)"},
		{"url added to a stdio lock", func(t *testing.T) *Lock {
			l := buildDemo(t)
			l.Server.URL = str("https://example.com/mcp")
			return l
		}, "a URL server must have an empty command and args"},
		{"command added to a url lock", func(t *testing.T) *Lock {
			l := urlLock(t, "https://example.com/mcp")
			l.Server.Command = "node"
			return l
		}, "a URL server must have an empty command and args"},
		{"args added to a url lock", func(t *testing.T) *Lock {
			l := urlLock(t, "https://example.com/mcp")
			l.Server.Args = []string{"x"}
			return l
		}, "a URL server must have an empty command and args"},
		{"digest edited", func(t *testing.T) *Lock {
			l := buildDemo(t)
			l.Server.CommandDigest = "sha256:" + strings.Repeat("0", 64)
			return l
		}, "$.server.command_digest does not match"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Through the file format, as check reads it.
			l, err := Parse(Marshal(tc.lock(t)))
			if err != nil {
				t.Fatal(err)
			}
			err = Verify(l)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Verify = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestURLDigestVector pins reference-behaviour §1.3's URL vector.
func TestURLDigestVector(t *testing.T) {
	l := urlLock(t, "https://example.com/mcp")
	if want := "sha256:b6ab9af4649e26f4b90a7786ee4b70f287a0b0189551386e1accb431f4e97986"; l.Server.CommandDigest != want {
		t.Fatalf("command_digest = %s, want %s", l.Server.CommandDigest, want)
	}
	if l.Server.Command != "" || len(l.Server.Args) != 0 {
		t.Fatalf("URL server launch = %q %q", l.Server.Command, l.Server.Args)
	}
}

// TestReferenceLocksVerify requires every lock the reference wrote (the
// drift baselines of its corpus) and the committed demo lock to pass the
// self-check. The one exception is documented in the corpus: in
// drift/schema-modified-v1-fallback the reference nulled a skeleton
// without recomputing the entry digest; its server block still verifies.
func TestReferenceLocksVerify(t *testing.T) {
	demo := filepath.Join("..", "..", "testdata", "demo", "warden.lock")
	l, err := ReadFile(demo)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(l); err != nil {
		t.Fatalf("%s: %v", demo, err)
	}
	dir := os.Getenv("WARDEN_VECTORS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "vectors")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "cases", "drift-*.json"))
	if len(files) == 0 {
		t.Skipf("no reference corpus at %s", dir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := jsonv.Parse(data, jsonv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		l, err := FromValue(c.Get("lock"))
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		if err := verifyServer(&canon.Hasher{}, l.Server); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
		err = Verify(l)
		if filepath.Base(f) == "drift-schema-modified-v1-fallback.json" {
			if err == nil || !strings.Contains(err.Error(), "$.tools[0].entry_digest") {
				t.Errorf("%s: the corpus documents a stale entry digest here; Verify = %v", filepath.Base(f), err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
}
