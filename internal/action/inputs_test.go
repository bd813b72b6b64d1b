package action

import (
	"github.com/wardenlock/warden/internal/capture"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseServerCmd(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr string
	}{
		{"simple", "npx -y @scope/server@1.2.3", []string{"npx", "-y", "@scope/server@1.2.3"}, ""},
		{"tabs and runs of spaces", "  ./server \t --port=8080   x ", []string{"./server", "--port=8080", "x"}, ""},
		{"json array", `["node", "server.js", "--name", "my server"]`, []string{"node", "server.js", "--name", "my server"}, ""},
		{"json array keeps metacharacters literal", `["grep", "a|b;$(x)"]`, []string{"grep", "a|b;$(x)"}, ""},
		{"json not strings", `["node", 5]`, nil, "JSON array of strings"},
		{"json empty", `[]`, nil, "non-empty command"},
		{"json empty command", `["", "x"]`, nil, "non-empty command"},
		{"json trailing garbage", `["a"] ; rm`, nil, "JSON array"},
		{"json NUL", `["a", "b\u0000"]`, nil, "NUL"},
		{"newline", "server\n--evil", nil, "newline"},
		{"carriage return", "server\r--evil", nil, "newline"},
		{"control character", "server\x1b[31m", nil, "control character"},
		{"empty", "   ", nil, "empty"},
	}
	for _, c := range ";|&$`\\<>(){}'\"" {
		tests = append(tests, struct {
			name    string
			in      string
			want    []string
			wantErr string
		}{"metacharacter " + string(c), "node server.js " + string(c) + " x", nil, "shell metacharacter"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseServerCmd(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseServerCmd(%q) = %q, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				if !strings.HasPrefix(err.Error(), "input server-cmd: ") {
					t.Errorf("error does not name the input: %v", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseServerCmd(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseHeaders(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		wantErr  string
	}{
		{"empty", "", nil, ""},
		{"two lines and blanks", "Authorization: Bearer ${TOKEN}\n\n  X-Trace :  a:b  \r\n", []string{"Authorization: Bearer ${TOKEN}", "X-Trace: a:b"}, ""},
		{"no colon", "Authorization Bearer x", nil, "line 1 is not"},
		{"bad name", "Bad Name: x", nil, "not a valid header name"},
		{"empty name", ": x", nil, "line 1 is not"},
		{"control in value", "X: a\x00b", nil, "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHeaders(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseHeaders = %q, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseHeaders = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseEnv(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		wantErr  string
	}{
		{"empty", "\n \n", nil, ""},
		{"forms", "API_KEY\nPORT=8080\nEMPTY=\nEQ=a=b\r\n", []string{"API_KEY", "PORT=8080", "EMPTY=", "EQ=a=b"}, ""},
		{"digit first", "1X=2", nil, "not a valid variable name"},
		{"dash", "MY-VAR=1", nil, "not a valid variable name"},
		{"empty name", "=1", nil, "not a valid variable name"},
		{"NUL", "A=b\x00", nil, "NUL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseEnv(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseEnv = %q, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseEnv = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseInputs(t *testing.T) {
	tests := []struct {
		name    string
		inputs  map[string]string
		check   func(t *testing.T, in Inputs)
		wantErr string
	}{
		{"defaults", map[string]string{"server-cmd": "./server"}, func(t *testing.T, in Inputs) {
			want := Inputs{Mode: ModeCheck, Argv: []string{"./server"}, Lock: "warden.lock", SARIF: "warden.sarif",
				Timeout: 30 * time.Second, StartupTimeout: capture.DefaultStartupTimeout, MaxPages: 256, MaxItems: capture.DefaultMaxItems, Protocol: capture.ProtocolAuto, WorkDirInput: ".", Snapshot: true}
			if !reflect.DeepEqual(in, want) {
				t.Errorf("got %+v\nwant %+v", in, want)
			}
		}, ""},
		{"everything", map[string]string{
			"server-url": "https://mcp.example.com/mcp", "headers": "Authorization: Bearer ${T}",
			"lock": "locks/a.lock", "sarif": "out/a.sarif", "timeout": "2.5", "startup-timeout": "300", "max-pages": "10", "max-items": "500",
			"working-directory": "sub", "mode": "PIN", "approver": "octocat", "protocol": " Modern ",
		}, func(t *testing.T, in Inputs) {
			want := Inputs{Mode: ModePin, URL: "https://mcp.example.com/mcp", Headers: []string{"Authorization: Bearer ${T}"},
				Lock: "locks/a.lock", SARIF: "out/a.sarif", Timeout: 2500 * time.Millisecond, StartupTimeout: 300 * time.Second, MaxPages: 10, MaxItems: 500, Protocol: capture.ProtocolModern,
				WorkDirInput: "sub", Approver: "octocat", Snapshot: true}
			if !reflect.DeepEqual(in, want) {
				t.Errorf("got %+v\nwant %+v", in, want)
			}
		}, ""},
		{"stdio env", map[string]string{"server-cmd": "srv", "env": "A=1\nB"}, func(t *testing.T, in Inputs) {
			if !reflect.DeepEqual(in.Env, []string{"A=1", "B"}) {
				t.Errorf("env = %q", in.Env)
			}
		}, ""},
		{"both targets", map[string]string{"server-cmd": "srv", "server-url": "http://x/mcp"}, nil, "not both"},
		{"no target", map[string]string{}, nil, "give exactly one"},
		{"bad mode", map[string]string{"server-cmd": "srv", "mode": "approve"}, nil, "input mode"},
		{"approver in check mode", map[string]string{"server-cmd": "srv", "approver": "me"}, nil, "only used with mode: pin"},
		{"approver newline", map[string]string{"server-cmd": "srv", "mode": "pin", "approver": "me\nyou"}, nil, "control character"},
		{"headers without url", map[string]string{"server-cmd": "srv", "headers": "A: b"}, nil, "only used with server-url"},
		{"env with url", map[string]string{"server-url": "http://x/mcp", "env": "A=b"}, nil, "only used with server-cmd"},
		{"url scheme", map[string]string{"server-url": "file:///etc/passwd"}, nil, "not an http"},
		{"url spaces", map[string]string{"server-url": "http://x/ y"}, nil, "whitespace"},
		{"timeout text", map[string]string{"server-cmd": "srv", "timeout": "soon"}, nil, "input timeout"},
		{"startup-timeout text", map[string]string{"server-cmd": "srv", "startup-timeout": "soon"}, nil, "input startup-timeout"},
		{"startup-timeout zero", map[string]string{"server-cmd": "srv", "startup-timeout": "0"}, nil, "input startup-timeout"},
		{"startup-timeout too long", map[string]string{"server-cmd": "srv", "startup-timeout": "3601"}, nil, "input startup-timeout: 3601 seconds is more than"},
		{"timeout zero", map[string]string{"server-cmd": "srv", "timeout": "0"}, nil, "input timeout"},
		{"timeout NaN", map[string]string{"server-cmd": "srv", "timeout": "NaN"}, nil, "input timeout"},
		{"timeout huge", map[string]string{"server-cmd": "srv", "timeout": "1e300"}, nil, "more than"},
		{"max-pages zero", map[string]string{"server-cmd": "srv", "max-pages": "0"}, nil, "input max-pages"},
		{"max-items zero", map[string]string{"server-cmd": "srv", "max-items": "0"}, nil, "input max-items"},
		{"max-pages text", map[string]string{"server-cmd": "srv", "max-pages": "many"}, nil, "input max-pages"},
		{"lock newline", map[string]string{"server-cmd": "srv", "lock": "a\nb"}, nil, "input lock"},
		{"config and server-cmd", map[string]string{"config": ".mcp.json", "server-cmd": "srv"}, nil, "give exactly one"},
		{"servers without config", map[string]string{"server-cmd": "srv", "servers": "a"}, nil, "input servers: only used with config"},
		{"headers with config", map[string]string{"config": ".mcp.json", "headers": "A: b"}, nil, "not used with config"},
		{"protocol unknown", map[string]string{"server-cmd": "srv", "protocol": "2026-07-28"}, nil, "input protocol must be auto, modern or legacy"},
		{"config-env", map[string]string{"config": ".mcp.json", "config-env": "API_KEY\n  SEARCH_KEY, OTHER\n"}, func(t *testing.T, in Inputs) {
			if !reflect.DeepEqual(in.ConfigEnv, []string{"API_KEY", "SEARCH_KEY", "OTHER"}) {
				t.Errorf("config-env = %q", in.ConfigEnv)
			}
		}, ""},
		{"config-env without config", map[string]string{"server-cmd": "srv", "config-env": "A"}, nil, "input config-env: only used with config"},
		{"config-env not a name", map[string]string{"config": ".mcp.json", "config-env": "A-B"}, nil, `input config-env: "A-B" is not a variable name`},
		{"config-env runner token", map[string]string{"config": ".mcp.json", "config-env": "actions_runtime_token"}, nil, "is a variable of the runner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := ParseInputs(func(name string) string { return tt.inputs[name] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseInputs = %+v, %v; want error containing %q", in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, in)
		})
	}
}

func TestResolveWorkDir(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{"sub/deeper", "a b"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "sub"), filepath.Join(ws, "inner")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, want, wantErr string
	}{
		{".", ws, ""},
		{"sub/deeper", filepath.Join(ws, "sub", "deeper"), ""},
		{"sub/../a b", filepath.Join(ws, "a b"), ""},
		{filepath.Join(ws, "sub"), filepath.Join(ws, "sub"), ""},
		{"inner", filepath.Join(ws, "inner"), ""},
		{"..", "", "outside the workspace"},
		{"sub/../../x", "", "outside the workspace"},
		{outside, "", "outside the workspace"},
		{"escape", "", "symbolic link"},
		{"missing", "", "no such file"},
		{"file", "", "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			got, err := ResolveWorkDir(ws, tt.dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ResolveWorkDir(%q) = %q, %v; want error containing %q", tt.dir, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ResolveWorkDir(%q) = %q, %v; want %q", tt.dir, got, err, tt.want)
			}
		})
	}
}

func TestShellQuote(t *testing.T) {
	tests := map[string]string{
		"./demo-server":  "./demo-server",
		"@scope/pkg@1.0": "@scope/pkg@1.0",
		"":               "''",
		"my server":      "'my server'",
		"it's":           `'it'\''s'`,
		"$(id)":          "'$(id)'",
	}
	for in, want := range tests {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReviewCommands(t *testing.T) {
	tests := []struct {
		name string
		in   Inputs
		want []string
	}{
		{"stdio", Inputs{Argv: []string{"node", "my server.js"}, Env: []string{"API_KEY=secret", "HOME"}, Lock: "warden.lock", WorkDirInput: "."},
			[]string{
				"warden check --lock warden.lock --env API_KEY --env HOME -- node 'my server.js'",
				"warden pin --lock candidate.lock --env API_KEY --env HOME -- node 'my server.js'",
				"warden diff warden.lock candidate.lock",
				"warden pin --lock warden.lock --approve --approver <you> --env API_KEY --env HOME -- node 'my server.js'",
			}},
		{"url in a subdirectory", Inputs{URL: "https://x/mcp", Headers: []string{"Authorization: Bearer tok", "X-Key: ${KEY}", "X-Auth: Bearer ${T}", "X-Mixed: tok${T}"}, Lock: "a.lock", WorkDirInput: "srv"},
			[]string{
				"cd srv",
				"warden check --lock a.lock --header 'Authorization: <value>' --header 'X-Key: ${KEY}' --header 'X-Auth: Bearer ${T}' --header 'X-Mixed: <value>' --url https://x/mcp",
				"warden pin --lock candidate.lock --header 'Authorization: <value>' --header 'X-Key: ${KEY}' --header 'X-Auth: Bearer ${T}' --header 'X-Mixed: <value>' --url https://x/mcp",
				"warden diff a.lock candidate.lock",
				"warden pin --lock a.lock --approve --approver <you> --header 'Authorization: <value>' --header 'X-Key: ${KEY}' --header 'X-Auth: Bearer ${T}' --header 'X-Mixed: <value>' --url https://x/mcp",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{in: tt.in}
			got := r.reviewCommands()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			for _, c := range got {
				if strings.Contains(c, "secret") || strings.Contains(c, "tok") {
					t.Errorf("a secret value leaked into %q", c)
				}
			}
		})
	}
}

// TestSnapshotInputs: snapshot is true unless "false"; allow-secret-in-
// snapshot is pin's; other values are refused naming the input.
func TestSnapshotInputs(t *testing.T) {
	get := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		inputs        map[string]string
		snapshot      bool
		allow         bool
		wantErrSubstr string
	}{
		{map[string]string{"server-cmd": "./s"}, true, false, ""},
		{map[string]string{"server-cmd": "./s", "snapshot": " TRUE "}, true, false, ""},
		{map[string]string{"server-cmd": "./s", "snapshot": "false"}, false, false, ""},
		{map[string]string{"server-cmd": "./s", "mode": "pin", "snapshot": "false"}, false, false, ""},
		{map[string]string{"server-cmd": "./s", "mode": "pin", "allow-secret-in-snapshot": "true"}, true, true, ""},
		{map[string]string{"server-cmd": "./s", "snapshot": "no"}, false, false, "input snapshot:"},
		{map[string]string{"server-cmd": "./s", "allow-secret-in-snapshot": "true"}, false, false, "input allow-secret-in-snapshot: only used with mode: pin"},
		{map[string]string{"server-cmd": "./s", "mode": "pin", "allow-secret-in-snapshot": "1"}, false, false, "input allow-secret-in-snapshot:"},
	}
	for _, c := range cases {
		in, err := ParseInputs(get(c.inputs))
		if c.wantErrSubstr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErrSubstr) {
				t.Errorf("%v: error %v, want %q", c.inputs, err, c.wantErrSubstr)
			}
			continue
		}
		if err != nil || in.Snapshot != c.snapshot || in.AllowSecretInSnapshot != c.allow {
			t.Errorf("%v: snapshot %v, allow %v, %v", c.inputs, in.Snapshot, in.AllowSecretInSnapshot, err)
		}
	}
}

func TestAllowSecretInLockInput(t *testing.T) {
	get := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	in, err := ParseInputs(get(map[string]string{"server-cmd": "./s", "mode": "pin", "allow-secret-in-lock": "true"}))
	if err != nil || !in.AllowSecretInLock {
		t.Fatalf("pin with allow-secret-in-lock: %+v, %v", in, err)
	}
	for _, m := range []map[string]string{
		{"server-cmd": "./s", "allow-secret-in-lock": "true"},
		{"server-cmd": "./s", "mode": "pin", "allow-secret-in-lock": "yes"},
	} {
		if _, err := ParseInputs(get(m)); err == nil || !strings.Contains(err.Error(), "allow-secret-in-lock") {
			t.Errorf("%v: error %v", m, err)
		}
	}
}
