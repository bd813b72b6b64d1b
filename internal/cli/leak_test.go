package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/report"
	"github.com/wardenlock/warden/internal/testserver"
)

// planted mirrors testdata/servers/secretserver: fake secrets of every
// pattern, split between values the lock only hashes (hidden) and the
// identities the format stores (a tool name and a resource URI).
func planted() (hidden map[string]string, toolName, resourceURI, argvSecret string) {
	hidden = map[string]string{
		"WRD-SEC-OPENAI":   "sk" + "-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv",
		"WRD-SEC-GITHUB":   "gh" + "p_" + strings.Repeat("aB3dE", 7) + "f",
		"WRD-SEC-AWS-AKID": "AK" + "IA" + "Q7XK2M9P4R8T1W6Z",
		"WRD-SEC-SLACK":    "xo" + "xb-" + "2718281828-aZ9bY8cX7w",
		"WRD-SEC-PRIVKEY":  "-----BEGIN RSA " + "PRIVATE KEY-----",
		"WRD-SEC-JWT":      "ey" + "JhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"WRD-SEC-ENTROPY":  "Zx9Qw2Lk7Vb4Np1Rt6Ys3Hd8Gf5Jm0CuE",
	}
	toolName = "rotate_" + "AK" + "IA" + "Z1Y2X3W4V5U6T7S8"
	resourceURI = "https://example.com/cfg?token=" + "Qm8Rk2Tz6Wp4Ys9Lx3Vn7Bc5Hd1Jf0GaE"
	argvSecret = "sk" + "-" + "Zz9yY8xX7wW6vV5uU4tT3sS2rR"
	return
}

// fragments are the pieces of a secret that must never be printed: past the
// few leading characters redaction keeps, in raw and Markdown-escaped form.
func fragments(secret string) []string {
	r := []rune(secret)
	frag := string(r[4:min(len(r), 16)])
	return []string{frag, report.EscapeMarkdown(frag)}
}

func TestNoRawSecretLeaks(t *testing.T) {
	bin := testserver.Build(t, "testdata/servers/secretserver")
	hidden, _, resourceURI, _ := planted()
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "warden.lock")
	argv := []string{bin, "--region", "eu"}
	outputs := map[string]string{}
	record := func(name string, code int, stdout, stderr string, wantCode int) {
		t.Helper()
		if code != wantCode {
			t.Fatalf("%s: exit %d, want %d\n%s%s", name, code, wantCode, stdout, stderr)
		}
		outputs[name+" stdout"] = stdout
		outputs[name+" stderr"] = stderr
	}
	readFile := func(name, path string) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		outputs[name] = string(data)
	}

	code, out, errs := run(t, append([]string{"pin", "--lock", lockPath, "--no-snapshot", "--json", "--sarif", filepath.Join(dir, "pin.sarif"), "--"}, argv...)...)
	record("pin --json", code, out, errs, 0)
	readFile("pin.sarif", filepath.Join(dir, "pin.sarif"))
	textLock := filepath.Join(dir, "text.lock")
	code, out, errs = run(t, append([]string{"pin", "--lock", textLock, "--no-snapshot", "--"}, argv...)...)
	record("pin text", code, out, errs, 0)
	// With a snapshot, whose screen refuses the server's secrets: the
	// refusal names where they are, not what.
	code, out, errs = run(t, append([]string{"pin", "--lock", filepath.Join(dir, "snap.lock"), "--"}, argv...)...)
	record("pin (snapshot refused)", code, out, errs, 2)
	code, out, errs = run(t, append([]string{"check", "--lock", lockPath, "--json", "--sarif", filepath.Join(dir, "check.sarif"), "--env", "SECRET_MUTATE=1", "--"}, argv...)...)
	record("check --json", code, out, errs, 1)
	readFile("check.sarif", filepath.Join(dir, "check.sarif"))
	code, out, errs = run(t, append([]string{"check", "--lock", lockPath, "--env", "SECRET_MUTATE=1", "--"}, argv...)...)
	record("check text", code, out, errs, 1)
	code, out, errs = run(t, "diff", lockPath, textLock)
	record("diff", code, out, errs, 0)

	// The Action, as the runner drives it.
	ghOut, ghSummary := filepath.Join(dir, "gh-output"), filepath.Join(dir, "gh-summary")
	os.WriteFile(ghOut, nil, 0o644)
	os.WriteFile(ghSummary, nil, 0o644)
	inputs := map[string]string{
		"INPUT_SERVER-CMD":    strings.Join(argv, " "),
		"INPUT_ENV":           "SECRET_MUTATE=1",
		"INPUT_LOCK":          "warden.lock",
		"INPUT_SARIF":         "action.sarif",
		"GITHUB_WORKSPACE":    dir,
		"GITHUB_OUTPUT":       ghOut,
		"GITHUB_STEP_SUMMARY": ghSummary,
	}
	var aout, aerr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	acode := Main(ctx, Env{Args: []string{"action"}, Stdout: &aout, Stderr: &aerr, Getenv: func(k string) string { return inputs[k] }, Version: "test", Dir: dir})
	record("action", acode, aout.String(), aerr.String(), 1)
	readFile("GITHUB_OUTPUT", ghOut)
	readFile("GITHUB_STEP_SUMMARY", ghSummary)
	readFile("action.sarif", filepath.Join(dir, "action.sarif"))

	// Every hidden secret was detected...
	l, err := lock.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]bool{}
	for _, f := range l.Findings {
		rules[f.RuleID] = true
	}
	for rule := range hidden {
		// The Slack token only appears in the drifted description, so
		// check reports it; the others are embedded at pin.
		if rule == "WRD-SEC-SLACK" {
			if !strings.Contains(outputs["check --json stdout"], `"rule_id": "WRD-SEC-SLACK"`) {
				t.Errorf("check did not report the %s finding", rule)
			}
			continue
		}
		if !rules[rule] {
			t.Errorf("no %s finding embedded in the lock", rule)
		}
	}
	// ...and none reaches the lock or any output.
	readFile("warden.lock", lockPath)
	for name, text := range outputs {
		for rule, secret := range hidden {
			for _, frag := range fragments(secret) {
				if strings.Contains(text, frag) {
					t.Errorf("%s leaks the %s secret (%q)", name, rule, frag)
				}
			}
		}
	}
	// Identities are stored by the format; outside the lock they may appear
	// only as the entry's target, and the argv secret never outside the lock.
	for name, text := range outputs {
		if name == "warden.lock" {
			continue
		}
		scrubbed := strings.NewReplacer("resources/"+resourceURI, "", report.EscapeMarkdown("resources/"+resourceURI), "").Replace(text)
		for _, secret := range []string{resourceURI} {
			for _, frag := range fragments(secret[strings.LastIndexAny(secret, "_=")+1:]) {
				if strings.Contains(scrubbed, frag) {
					t.Errorf("%s leaks an identity/argv secret outside a target (%q)", name, frag)
				}
			}
		}
	}
}

// TestPinRefusesToStoreSecrets: values the lock stores verbatim (argv, entry
// names, enum members) must not carry a secret unless the user overrides.
func TestPinRefusesToStoreSecrets(t *testing.T) {
	bin := testserver.Build(t, "testdata/servers/secretserver")
	_, toolName, _, argvSecret := planted()
	dir := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		secret string
		where  string
	}{
		{"argv", []string{"--", bin, "--api-key", argvSecret}, argvSecret, "$.server.args[1] (WRD-SEC-OPENAI sk-Z…(len=29))"},
		{"names and enums", []string{"--env", "SECRET_STORED=1", "--", bin}, toolName, "$.tools[1].schema_skeleton.props.k.enum[0] (WRD-SEC-AWS-AKID AKIA…(len=20))"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lockPath := filepath.Join(dir, tc.name+".lock")
			code, out, errs := run(t, append([]string{"pin", "--lock", lockPath}, tc.args...)...)
			if code != ExitError || !strings.Contains(errs, "refusing to write a lock that would store a secret verbatim") || !strings.Contains(errs, tc.where) {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
			}
			for _, frag := range fragments(tc.secret[strings.LastIndexAny(tc.secret, "_")+1:]) {
				if strings.Contains(errs+out, frag) {
					t.Errorf("the refusal printed the secret (%q)", frag)
				}
			}
			if _, err := os.Stat(lockPath); err == nil {
				t.Fatal("a refused pin wrote the lock")
			}
			code, _, errs = run(t, append([]string{"pin", "--lock", lockPath, "--allow-secret-in-lock", "--no-snapshot"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("--allow-secret-in-lock: exit %d: %s", code, errs)
			}
		})
	}
}
