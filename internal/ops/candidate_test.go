package ops

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
)

// TestCandidate builds the candidate lock of a check whose capture is the
// demo lock's surface: it carries the findings and a fresh, unapproved pin
// recording the protocol, pinner and time; it verifies, round-trips through
// the writer and reader, and leaves the check's own lock untouched.
func TestCandidate(t *testing.T) {
	base, err := lock.ReadFile(demoLock(t))
	if err != nil {
		t.Fatal(err)
	}
	current := *base
	current.Pin = lock.Pin{}
	current.Findings = []lock.Finding{}
	findings := []lock.Finding{{RuleID: "WRD-CAP-SQL", Severity: "medium", Target: "tools/x", Message: "m", Snippet: "s"}}
	res := &CheckResult{Baseline: base, Current: &current, Findings: findings, ProtocolVersion: "2025-06-18"}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

	tests := []struct {
		name string
		opts CandidateOptions
		want func(t *testing.T, l *lock.Lock)
	}{
		{"pinner recorded", CandidateOptions{Version: "1.2.3", Actor: "octocat", Environment: "github-actions", Now: func() time.Time { return at }},
			func(t *testing.T, l *lock.Lock) {
				if l.Pin.Approved || l.Pin.Approver != nil {
					t.Errorf("candidate is approved: %+v", l.Pin)
				}
				if l.Pin.MCPProtocolVersion != "2025-06-18" || l.Pin.CreatedAt != "2026-05-01T12:00:00Z" || l.WardenVersion != "1.2.3" {
					t.Errorf("pin = %+v, warden_version %q", l.Pin, l.WardenVersion)
				}
				if len(l.Findings) != 1 || l.Findings[0].RuleID != "WRD-CAP-SQL" {
					t.Errorf("findings = %+v", l.Findings)
				}
				if !strings.Contains(string(lock.Marshal(l)), `"actor": "octocat"`) {
					t.Errorf("pinner actor not recorded:\n%s", lock.Marshal(l))
				}
			}},
		{"no pinner", CandidateOptions{}, func(t *testing.T, l *lock.Lock) {
			if l.Pin.CreatedAt == "" {
				t.Error("no created_at")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Candidate(context.Background(), res, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			tt.want(t, l)
			if err := lock.Verify(l); err != nil {
				t.Errorf("candidate does not verify: %v", err)
			}
			path := filepath.Join(t.TempDir(), "candidate.lock")
			if err := lock.WriteFile(path, l); err != nil {
				t.Fatal(err)
			}
			back, err := lock.ReadFile(path)
			if err != nil {
				t.Fatalf("candidate does not read back: %v", err)
			}
			// Same surface as the baseline: the only difference is the
			// approval the candidate lacks.
			for _, it := range drift.Compare(base, back) {
				if !strings.Contains(it.Class, "approv") {
					t.Errorf("unexpected drift from the baseline: %+v", it)
				}
			}
			if res.Current.Pin.CreatedAt != "" || len(res.Current.Findings) != 0 {
				t.Error("Candidate modified the check's lock")
			}
		})
	}
}

// TestCandidateRefuses covers a check without a capture and a surface that
// would store a secret verbatim.
func TestCandidateRefuses(t *testing.T) {
	if _, err := Candidate(context.Background(), nil, CandidateOptions{}); err == nil {
		t.Error("Candidate(nil) succeeded")
	}
	if _, err := Candidate(context.Background(), &CheckResult{}, CandidateOptions{}); err == nil {
		t.Error("Candidate without a current lock succeeded")
	}
	base, err := lock.ReadFile(demoLock(t))
	if err != nil {
		t.Fatal(err)
	}
	secret := *base
	secret.Server.Args = append(append([]string{}, base.Server.Args...), "ghp_"+strings.Repeat("a1B2", 9))
	_, err = Candidate(context.Background(), &CheckResult{Current: &secret}, CandidateOptions{})
	var se *StoredSecretError
	if !errors.As(err, &se) {
		t.Fatalf("Candidate with a token in argv = %v, want a StoredSecretError", err)
	}
	if l, err := Candidate(context.Background(), &CheckResult{Current: &secret}, CandidateOptions{AllowSecretInLock: true}); err != nil || l == nil {
		t.Errorf("AllowSecretInLock: %v", err)
	}
}
