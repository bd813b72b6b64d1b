package cli

import (
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
)

func TestParseInterspersed(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantPos  []string
		wantExit bool
		wantJSON bool
		wantErr  bool
	}{
		{"flags first", []string{"--exit-code", "a.lock", "b.lock"}, []string{"a.lock", "b.lock"}, true, false, false},
		{"flags last", []string{"a.lock", "b.lock", "--exit-code"}, []string{"a.lock", "b.lock"}, true, false, false},
		{"flags between", []string{"a.lock", "--json", "b.lock", "--exit-code"}, []string{"a.lock", "b.lock"}, true, true, false},
		{"no flags", []string{"a.lock", "b.lock"}, []string{"a.lock", "b.lock"}, false, false, false},
		{"terminator keeps the rest", []string{"a.lock", "--", "--exit-code"}, []string{"a.lock", "--exit-code"}, false, false, false},
		{"single dash is positional", []string{"-", "b.lock"}, []string{"-", "b.lock"}, false, false, false},
		{"unknown flag after positional", []string{"a.lock", "--nope"}, nil, false, false, true},
		{"nothing", nil, nil, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("diff", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			exit := fs.Bool("exit-code", false, "")
			js := fs.Bool("json", false, "")
			pos, err := parseInterspersed(fs, tt.args)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if !reflect.DeepEqual(pos, tt.wantPos) || *exit != tt.wantExit || *js != tt.wantJSON {
				t.Fatalf("positional %q exit-code %v json %v; want %q %v %v", pos, *exit, *js, tt.wantPos, tt.wantExit, tt.wantJSON)
			}
		})
	}
}

// pinPair pins the demo server twice: a.lock as is and b.lock with the
// drifted surface (DEMO_MUTATE=1) and extra launch arguments.
func pinPair(t *testing.T, bArgs ...string) (srv, a, b string) {
	t.Helper()
	srv = demoServer(t)
	dir := t.TempDir()
	a, b = filepath.Join(dir, "a.lock"), filepath.Join(dir, "b.lock")
	if code, _, errs := run(t, "pin", "--lock", a, "--", srv); code != ExitClean {
		t.Fatal(errs)
	}
	args := append([]string{"pin", "--lock", b, "--env", "DEMO_MUTATE=1", "--", srv}, bArgs...)
	if code, _, errs := run(t, args...); code != ExitClean {
		t.Fatal(errs)
	}
	return srv, a, b
}

func TestFlagsAfterPositionalArguments(t *testing.T) {
	_, a, b := pinPair(t)
	tests := []struct {
		args     []string
		wantCode int
		wantOut  string
	}{
		{[]string{"diff", a, b, "--exit-code"}, ExitDrift, "a.lock → b.lock ("},
		{[]string{"diff", a, "--exit-code", b}, ExitDrift, "a.lock → b.lock ("},
		{[]string{"diff", a, b, "--json"}, ExitClean, `"kind": "drift"`},
		{[]string{"diff", a, a, "--exit-code"}, ExitClean, "no differences (a.lock → a.lock)"},
	}
	for _, tt := range tests {
		code, out, errs := run(t, tt.args...)
		if code != tt.wantCode || !strings.Contains(out, tt.wantOut) {
			t.Errorf("warden %s: exit %d, stdout %q, stderr %q; want exit %d and %q", strings.Join(tt.args[1:], " "), code, out, errs, tt.wantCode, tt.wantOut)
		}
	}
	// approve takes flags anywhere too, and still no positional argument.
	if code, _, errs := run(t, "approve", "--lock", a, "extra", "--approver", "alice"); code != ExitError || !strings.Contains(errs, `approve takes no arguments (got "extra")`) {
		t.Errorf("approve with a stray argument: exit %d, %q", code, errs)
	}
}

// tamper rewrites path so that its first tool's description hash no longer
// matches the tool (the overall digest is left as it was).
func tamper(t *testing.T, path string) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := lock.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	l.Tools[0].DescriptionHash = l.Tools[1].DescriptionHash
	if err := lock.WriteFile(path, l); err != nil {
		t.Fatal(err)
	}
}

func TestDiffRefusesTamperedLock(t *testing.T) {
	_, a, b := pinPair(t)
	tampered := filepath.Join(t.TempDir(), "tampered.lock")
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tampered, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tamper(t, tampered)
	for _, args := range [][]string{
		{"diff", tampered, b},
		{"diff", a, tampered},
		{"diff", tampered, tampered, "--exit-code"},
		{"diff", "--json", tampered, a},
	} {
		code, out, errs := run(t, args...)
		// --json also writes the failure as its one record on stdout.
		wantOut := out == ""
		if args[1] == "--json" {
			wantOut = strings.HasPrefix(out, `{"kind": "error", "message": "lock `) && strings.Count(out, "\n") == 1
		}
		if code != ExitError || !wantOut || !strings.Contains(errs, "lock "+tampered+" does not verify against its own entries (edited or tampered; re-pin it)") || strings.Count(errs, "\n") != 1 {
			t.Errorf("warden %s: exit %d, stdout %q, stderr %q; want exit 2 and one line refusing the tampered lock", strings.Join(args, " "), code, out, errs)
		}
	}
}

func TestMissingLockSuggestsPin(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "spawned")
	missing := filepath.Join(dir, "warden.lock")
	for _, args := range [][]string{
		{"check", "--lock", missing, "--", "touch", marker},
		{"diff", missing, missing},
	} {
		code, _, errs := run(t, args...)
		want := "error: no lock at " + missing + ": create it with 'warden pin'"
		if code != ExitError || !strings.HasPrefix(errs, want) || strings.Count(errs, missing) != 1 || strings.Count(errs, "\n") != 1 {
			t.Errorf("warden %s: exit %d, stderr %q; want one line starting %q naming the path once", args[0], code, errs, want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("check launched the server although the lock is missing")
	}
}

func TestPinRefusesUnwritableLockPathBeforeCapture(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "spawned")
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, lockPath, want string
	}{
		{"missing folder", filepath.Join(dir, "no", "such", "warden.lock"), "the folder " + filepath.Join(dir, "no", "such") + " does not exist"},
		{"a directory", dir, "lock " + dir + " is a directory"},
		{"folder is a file", filepath.Join(file, "warden.lock"), file + " is not a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := run(t, "pin", "--lock", tt.lockPath, "--", "touch", marker)
			if code != ExitError || !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, errs, tt.want)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("pin launched the server although it could not write the lock")
			}
		})
	}
}

// TestLaunchChangeShownBesideIdentityDrift: a check whose launch differs
// from the pinned one shows both launches argv by argv in text, JSON and
// SARIF, with a secret-looking argument redacted, while the
// server-identity item itself keeps the reference's message and no detail.
func TestLaunchChangeShownBesideIdentityDrift(t *testing.T) {
	srv := demoServer(t)
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "warden.lock")
	if code, _, errs := run(t, "pin", "--lock", lockPath, "--", srv); code != ExitClean {
		t.Fatal(errs)
	}
	token := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	current := []string{srv, "-mutate", "key=" + token}

	// Text.
	code, out, errs := run(t, append([]string{"check", "--lock", lockPath, "--"}, current...)...)
	if code != ExitDrift {
		t.Fatalf("check exit %d: %s%s", code, out, errs)
	}
	for _, want := range []string{
		"launch (server-identity): pinned vs current, * where they differ",
		"  argv[0]  " + srv + "  " + srv,
		"* argv[1]  (none)",
		"-mutate",
		"* argv[2]  (none)",
		"key=ghp_…(len=40)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out+errs, token) {
		t.Fatal("the token reached the output")
	}

	// JSON lines: the record is the reference's, plus "launch".
	sarifPath := filepath.Join(dir, "out.sarif")
	code, out, errs = run(t, append([]string{"check", "--lock", lockPath, "--json", "--sarif", sarifPath, "--"}, current...)...)
	if code != ExitDrift {
		t.Fatalf("check --json exit %d: %s", code, errs)
	}
	var identity map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if rec["drift_class"] == drift.ClassServerIdentity {
			identity = rec
		} else if _, ok := rec["launch"]; ok {
			t.Errorf("a record other than server-identity carries the launch: %s", line)
		}
	}
	if identity == nil {
		t.Fatalf("no server-identity record:\n%s", out)
	}
	if identity["message"] != "Server launch command/args changed since pin (you are pinning a different launch)" || identity["detail"] != nil {
		t.Errorf("server-identity message/detail changed: %v", identity)
	}
	wantLaunch := map[string]any{
		"pinned":  map[string]any{"command": srv, "args": []any{}, "url": nil},
		"current": map[string]any{"command": srv, "args": []any{"-mutate", "key=ghp_…(len=40)"}, "url": nil},
	}
	if !reflect.DeepEqual(identity["launch"], wantLaunch) {
		t.Errorf("launch = %v\nwant %v", identity["launch"], wantLaunch)
	}

	// SARIF: the launch is a property of the server-identity result.
	data, err := os.ReadFile(sarifPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), token) {
		t.Fatal("the token reached the SARIF file")
	}
	var doc struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Message struct{ Text string }
				Props   map[string]any `json:"properties"`
			}
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range doc.Runs[0].Results {
		if r.RuleID != "WRD-DRIFT-SERVER-IDENTITY" {
			continue
		}
		found = true
		if r.Message.Text != "Server launch command/args changed since pin (you are pinning a different launch)" {
			t.Errorf("SARIF message changed: %q", r.Message.Text)
		}
		if !reflect.DeepEqual(r.Props["launch"], wantLaunch) || r.Props["launchText"] != "pinned: "+srv+" → current: "+srv+" -mutate key=ghp_…(len=40)" {
			t.Errorf("SARIF launch properties: %v", r.Props)
		}
	}
	if !found {
		t.Fatal("no server-identity result in the SARIF")
	}

	// diff shows the same beside its item.
	candidate := filepath.Join(dir, "candidate.lock")
	if code, _, errs := run(t, append([]string{"pin", "--lock", candidate, "--allow-secret-in-lock", "--"}, current...)...); code != ExitClean {
		t.Fatal(errs)
	}
	code, out, _ = run(t, "diff", lockPath, candidate)
	if code != ExitClean || !strings.Contains(out, "launch (server-identity)") || !strings.Contains(out, "* argv[1]  (none)") || strings.Contains(out, token) {
		t.Errorf("diff: exit %d\n%s", code, out)
	}
}
