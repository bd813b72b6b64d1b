package action

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/snapshot"
	"github.com/wardenlock/warden/internal/testserver"
)

// tamperDescription edits the first description of the snapshot at path.
func tamperDescription(t *testing.T, path string) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(text), `"description": "`)
	if i < 0 {
		t.Fatalf("no description in %s", path)
	}
	at := i + len(`"description": "`)
	if err := os.WriteFile(path, []byte(string(text[:at])+"Trusted. "+string(text[at:])), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestActionSnapshot: mode pin writes the snapshot beside the lock (none
// with snapshot: false, which removes the old one); a check verifies it
// and fails, before the server starts, on a tampered one; on drift the
// candidate lock gets its candidate snapshot, which verifies against it.
func TestActionSnapshot(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	snapPath := filepath.Join(h.ws, "warden.surface.json")
	pinDemo(t, h, demo, ".")
	if _, err := os.Stat(snapPath); err != nil {
		t.Fatalf("pin wrote no snapshot: %v", err)
	}

	// Clean check with the snapshot.
	h.reset()
	h.input("server-cmd", "./server")
	if r := h.run(); r.code != ExitClean {
		t.Fatalf("check exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// Drift: a candidate lock and its snapshot.
	h.reset()
	writeLauncher(t, h.ws, demo, "-mutate")
	h.input("server-cmd", "./server")
	r := h.run()
	if r.code != ExitDrift {
		t.Fatalf("drift check exit %d\n%s", r.code, r.stdout)
	}
	candLock := filepath.Join(h.ws, "warden.candidate.lock")
	cand, err := lock.ReadFile(candLock)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.ReadFile(context.Background(), filepath.Join(h.ws, "warden.candidate.surface.json"))
	if err != nil {
		t.Fatalf("no candidate snapshot: %v", err)
	}
	if err := snapshot.Verify(snap, cand); err != nil {
		t.Fatalf("the candidate snapshot does not verify: %v", err)
	}

	// A tampered snapshot: exit 2 before the server runs.
	h.reset()
	writeLauncher(t, h.ws, demo)
	tamperDescription(t, snapPath)
	marker := filepath.Join(h.ws, "launched")
	if err := os.WriteFile(filepath.Join(h.ws, "server"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.input("server-cmd", "./server")
	r = h.run()
	assertFailed(t, h, r, "snapshot does not match lock")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the server ran before the snapshot was refused")
	}

	// snapshot: false pins without one and removes the stale one.
	h.reset()
	writeLauncher(t, h.ws, demo)
	h.input("server-cmd", "./server")
	h.input("mode", "pin")
	h.input("snapshot", "false")
	if r := h.run(); r.code != ExitClean {
		t.Fatalf("pin with snapshot: false: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(snapPath); err == nil {
		t.Fatal("snapshot: false left the old snapshot")
	}
	h.reset()
	h.input("server-cmd", "./server")
	if r := h.run(); r.code != ExitClean {
		t.Fatalf("check without a snapshot: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestReviewBaseSnapshot: the review reads the base branch's snapshot
// from git beside the base lock and verifies it; one that does not match
// the base lock fails the run (exit 2) with the error in the comment.
func TestReviewBaseSnapshot(t *testing.T) {
	needGit(t)
	demo := testserver.Build(t, "testdata/demo/server")
	for _, tampered := range []bool{false, true} {
		name := "verified"
		if tampered {
			name = "tampered"
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			gitCmd(t, h.ws, "init", "-q")
			pinDemo(t, h, demo, ".")
			if tampered {
				tamperDescription(t, filepath.Join(h.ws, "warden.surface.json"))
			}
			gitCmd(t, h.ws, "add", "warden.lock", "warden.surface.json")
			gitCmd(t, h.ws, "commit", "-q", "-m", "base")
			baseSHA := gitCmd(t, h.ws, "rev-parse", "HEAD")
			// The pull request re-pins from the mutated server.
			writeLauncher(t, h.ws, demo, "-mutate")
			h.input("server-cmd", "./server")
			h.input("mode", "pin")
			h.input("approver", "octocat")
			if r := h.run(); r.code != ExitClean {
				t.Fatalf("re-pin exit %d\n%s", r.code, r.stdout)
			}
			h.reset()
			gitCmd(t, h.ws, "commit", "-q", "-m", "re-pin", "warden.lock", "warden.surface.json")

			api := newFakeGitHub(t)
			onPullRequest(h, api, writeEvent(t, baseSHA, testHeadSHA, "o/r"))
			h.vars["PATH"] = os.Getenv("PATH")
			h.input("server-cmd", "./server")
			r := h.run()
			if !tampered {
				if r.code != ExitClean || strings.Contains(r.stdout, "::warning") {
					t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
				}
				return
			}
			assertFailed(t, h, r, "snapshot does not match lock: the base branch's snapshot against the base branch's lock")
			c := api.commentList()
			if len(c) != 1 || !strings.Contains(c[0].Body, "snapshot does not match lock") {
				t.Fatalf("comments %+v", c)
			}
		})
	}
}
