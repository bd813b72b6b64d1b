package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/testserver"
)

const actionSecret = "sk-live-77c1e0a9f3b2"

// TestConfigRunnerVariablesRefused: a pull request's config that asks for
// the runner's tokens fails, naming the variable; listing one in
// config-env is refused; a variable not listed is refused too; and no
// value reaches any output.
func TestConfigRunnerVariablesRefused(t *testing.T) {
	h := newHarness(t)
	marker := filepath.Join(t.TempDir(), "launched")
	cases := []struct {
		ref, configEnv, want string
	}{
		{"${ACTIONS_RUNTIME_TOKEN}", "", "${ACTIONS_RUNTIME_TOKEN} is a variable of the CI runner"},
		{"${ACTIONS_ID_TOKEN_REQUEST_TOKEN}", "API_TOKEN", "${ACTIONS_ID_TOKEN_REQUEST_TOKEN} is a variable of the CI runner"},
		{"${INPUT_GITHUB_TOKEN}", "", "variable of the CI runner"},
		{"${API_TOKEN}", "", "${API_TOKEN} is not in the config-env input"},
		{"${API_TOKEN}", "GITHUB_TOKEN", "input config-env: GITHUB_TOKEN is a variable of the runner"},
	}
	for _, tc := range cases {
		h.reset()
		h.vars["ACTIONS_RUNTIME_TOKEN"] = "runtime-token-value"
		h.vars["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] = "oidc-request-token"
		h.vars["INPUT_GITHUB_TOKEN"] = "ghs_inputtokenvalue"
		h.vars["API_TOKEN"] = actionSecret
		cfg := `{"mcpServers": {"evil": {"command": "touch", "args": ["` + marker + `"], "env": {"T": "` + tc.ref + `"}}}}`
		if err := os.WriteFile(filepath.Join(h.ws, ".mcp.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		h.input("config", ".mcp.json")
		h.input("config-env", tc.configEnv)
		r := h.run()
		all := r.stdout + r.stderr + r.summary
		if r.code != ExitError || !strings.Contains(all, tc.want) {
			t.Fatalf("%s: exit %d\n%s", tc.ref, r.code, all)
		}
		for _, v := range []string{"runtime-token-value", "oidc-request-token", "ghs_inputtokenvalue", actionSecret} {
			if strings.Contains(all, v) {
				t.Fatalf("%s: %s reached the output:\n%s", tc.ref, v, all)
			}
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: the server was launched", tc.ref)
		}
	}
}

// TestConfigSecretsMaskedEverywhere: an allowed variable's value, echoed
// back by the server (and quoted by warden when the command is the
// variable), is registered with ::add-mask:: and masked in the log, the
// summary and the outputs.
func TestConfigSecretsMaskedEverywhere(t *testing.T) {
	h := newHarness(t)
	for _, cfg := range []string{
		`{"mcpServers": {"s": {"command": "${API_TOKEN}"}}}`,
		`{"mcpServers": {"s": {"command": "sh", "args": ["-c", "echo token=$1 >&2; exit 3", "sh", "${API_TOKEN}"]}}}`,
	} {
		h.reset()
		h.vars["API_TOKEN"] = actionSecret
		if err := os.WriteFile(filepath.Join(h.ws, ".mcp.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		h.input("config", ".mcp.json")
		h.input("config-env", "API_TOKEN")
		h.input("mode", "pin")
		r := h.run()
		if r.code != ExitError {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stdout, "::add-mask::"+actionSecret+"\n") {
			t.Errorf("the value was not registered with the runner:\n%s", r.stdout)
		}
		rest := strings.Replace(r.stdout, "::add-mask::"+actionSecret+"\n", "", 1)
		for name, text := range map[string]string{"log": rest + r.stderr, "summary": r.summary, "outputs": strings.Join(values(r.outputs), "\n")} {
			if strings.Contains(text, actionSecret) {
				t.Errorf("%s holds the secret:\n%s", name, text)
			}
		}
		if !strings.Contains(r.stdout+r.stderr+r.summary, "***") {
			t.Errorf("no mask shown:\n%s%s%s", r.stdout, r.stderr, r.summary)
		}
	}
}

// TestHeaderAndEnvInputsMasked: a server that echoes what the env input
// handed it gets it masked in the log.
func TestHeaderAndEnvInputsMasked(t *testing.T) {
	envserver := testserver.Build(t, "testdata/servers/envserver")
	h := newHarness(t)
	// A bare env NAME is copied from the process's own environment.
	t.Setenv("API_TOKEN", actionSecret)
	h.vars["API_TOKEN"] = actionSecret
	h.input("server-cmd", envserver)
	h.input("env", "TOK=hunter2-literal\nAPI_TOKEN\nENVSERVER_TOOL_NAMED_BY=TOK")
	h.input("mode", "pin")
	r := h.run()
	// The tool named by the value makes the pin refuse, naming where.
	if r.code != ExitError || !strings.Contains(r.stderr, "a value handed to the server") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, v := range []string{"hunter2-literal", actionSecret} {
		if !strings.Contains(r.stdout, "::add-mask::"+v+"\n") {
			t.Errorf("%s not registered with the runner", v)
		}
		rest := strings.Replace(r.stdout, "::add-mask::"+v+"\n", "", 1)
		if strings.Contains(rest+r.stderr+r.summary, "hunter2-literal") && v == "hunter2-literal" {
			t.Errorf("%s reached the output", v)
		}
	}
	if _, err := os.Stat(filepath.Join(h.ws, "warden.lock")); err == nil {
		t.Error("a lock was written")
	}
}

func values(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
