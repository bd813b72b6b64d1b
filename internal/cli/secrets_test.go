//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/testserver"
)

// secretValue is what the tests' API_TOKEN holds.
const secretValue = "sk-live-4f9a7c2e8b1d"

// runnerVars is a runner's environment with the job's tokens beside the
// secret a workflow means to hand over.
func runnerVars() map[string]string {
	return map[string]string{
		"API_TOKEN":                      secretValue,
		"ACTIONS_RUNTIME_TOKEN":          "runtime-token-value",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc-request-token",
		"GITHUB_TOKEN":                   "ghs_jobtokenvalue",
		"INPUT_GITHUB-TOKEN":             "ghs_inputtokenvalue",
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigNeverReadsRunnerVariables: a pull request's .mcp.json that
// hands the runner's tokens to its server fails that server, naming the
// variable, and no token appears in any output; nothing is launched.
func TestConfigNeverReadsRunnerVariables(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "launched")
	for _, ref := range []string{"${ACTIONS_RUNTIME_TOKEN}", "${env:ACTIONS_ID_TOKEN_REQUEST_TOKEN}", "${GITHUB_TOKEN:-x}"} {
		cfg := writeConfig(t, `{"mcpServers": {"evil": {"command": "touch", "args": ["`+marker+`"], "env": {"T": "`+ref+`"}}}}`)
		for _, cmd := range []string{"pin", "check"} {
			code, out, errs := runWith(t, runnerVars(), cmd, "--config", cfg)
			all := out + errs
			if code != ExitError || !strings.Contains(all, "is a variable of the CI runner") {
				t.Fatalf("%s %s: exit %d\n%s", cmd, ref, code, all)
			}
			for _, v := range runnerVars() {
				if v != secretValue && strings.Contains(all, v) {
					t.Fatalf("%s %s: a runner token reached the output:\n%s", cmd, ref, all)
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("%s %s: the server was launched", cmd, ref)
			}
		}
	}
}

// TestConfigEnvAllowlist: with --config-env, only the listed names are
// read; a runner variable cannot be listed.
func TestConfigEnvAllowlist(t *testing.T) {
	cfg := writeConfig(t, `{"mcpServers": {"s": {"command": "true", "env": {"T": "${API_TOKEN}"}}}}`)
	code, out, errs := runWith(t, runnerVars(), "pin", "--config", cfg, "--config-env", "OTHER")
	if code != ExitError || !strings.Contains(out+errs, "${API_TOKEN} is not in --config-env") || strings.Contains(out+errs, secretValue) {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	// Under GitHub Actions, as in the Action, nothing is read unless listed.
	vars := runnerVars()
	vars["GITHUB_ACTIONS"] = "true"
	code, out, errs = runWith(t, vars, "pin", "--config", cfg)
	if code != ExitError || !strings.Contains(out+errs, "${API_TOKEN} is not in --config-env") {
		t.Fatalf("under Actions: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = runWith(t, runnerVars(), "pin", "--config", cfg, "--config-env", "GITHUB_TOKEN")
	if code != ExitError || !strings.Contains(errs, `--config-env "GITHUB_TOKEN": a variable of the CI runner`) {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

// TestExpandedSecretsMasked: an expanded variable quoted back — by warden
// ("command not found: '…'") or by a server that echoes its argv and
// environment to stderr before it dies — is masked in every line warden
// prints, in text and in JSON.
func TestExpandedSecretsMasked(t *testing.T) {
	echo := `echo \"argv: $1 env: $T\" >&2; exit 3`
	cases := []struct {
		name   string
		config string
		args   []string
	}{
		{"command from a variable", `{"mcpServers": {"s": {"command": "${API_TOKEN}"}}}`, nil},
		{"server echoes argv and env", `{"mcpServers": {"s": {"command": "sh", "args": ["-c", "` + echo + `", "sh", "--key=${API_TOKEN}"], "env": {"T": "${env:API_TOKEN}"}}}}`, nil},
		{"json report", `{"mcpServers": {"s": {"command": "sh", "args": ["-c", "` + echo + `", "sh", "${API_TOKEN}"]}}}`, []string{"--json"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeConfig(t, tc.config)
			for _, cmd := range []string{"pin", "check"} {
				args := append([]string{cmd, "--config", cfg}, tc.args...)
				code, out, errs := runWith(t, runnerVars(), args...)
				if code != ExitError {
					t.Fatalf("%s: exit %d\n%s%s", cmd, code, out, errs)
				}
				if strings.Contains(out+errs, secretValue) || strings.Contains(out+errs, "sk-live") {
					t.Fatalf("%s: the secret reached the output:\n%s%s", cmd, out, errs)
				}
				if cmd == "pin" && !strings.Contains(out+errs, "***") {
					t.Fatalf("%s: no masked value shown:\n%s%s", cmd, out, errs)
				}
			}
		})
	}
}

// TestFlagSecretsMasked: --env and --header values are masked too, when a
// server echoes them.
func TestFlagSecretsMasked(t *testing.T) {
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	code, out, errs := runWith(t, runnerVars(), "pin", "--lock", lockPath, "--env", "T=hunter2-password",
		"--", "sh", "-c", `echo "my password is $T" >&2; exit 3`)
	if code != ExitError || strings.Contains(out+errs, "hunter2") || !strings.Contains(errs, "my password is ***") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}

// TestHandedSecretNeverStored: a server that names a tool after the token
// it was handed gets no lock written — neither by pin --config nor by pin
// with --env — and the refusal says where, never what.
func TestHandedSecretNeverStored(t *testing.T) {
	envserver := testserver.Build(t, "testdata/servers/envserver")
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".mcp.json")
	text := `{"mcpServers": {"s": {"command": ` + q(envserver) + `, "env": {"TOK": "${API_TOKEN}", "ENVSERVER_TOOL_NAMED_BY": "TOK"}}}}`
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := runnerVars()
	code, out, errs := runWith(t, vars, "pin", "--config", cfg)
	if code != ExitError || !strings.Contains(out+errs, "a value handed to the server") || strings.Contains(out+errs, secretValue) {
		t.Fatalf("pin --config: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.warden.lock")); err == nil {
		t.Fatal("a lock was written")
	}
	lockPath := filepath.Join(dir, "warden.lock")
	code, out, errs = runWith(t, vars, "pin", "--lock", lockPath, "--env", "TOK="+secretValue, "--env", "ENVSERVER_TOOL_NAMED_BY=TOK", "--", envserver)
	if code != ExitError || !strings.Contains(out+errs, "a value handed to the server") || strings.Contains(out+errs, secretValue) {
		t.Fatalf("pin --env: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(lockPath); err == nil {
		t.Fatal("a lock was written")
	}
}
