package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/testserver"
)

// closedLoopback returns a loopback address that nothing listens on (it
// was just bound and released), so that every connection to it is
// refused at once.
func closedLoopback(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// rawReplies speaks to the server directly, without warden: initialize,
// then each of methods, and returns the raw reply line of each method. env
// adds NAME=VALUE entries to the server's environment.
func rawReplies(t *testing.T, argv, env []string, methods ...string) map[string][]byte {
	t.Helper()
	// A bound on a hung server, not a measurement.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"warden-test","version":"0"}}}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, m := range methods {
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":%q}`+"\n", i+1, m)
	}
	got := map[string][]byte{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 16<<20)
	for len(got) < len(methods) && sc.Scan() {
		var msg struct {
			ID *int `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil || *msg.ID < 1 || *msg.ID > len(methods) {
			continue
		}
		got[methods[*msg.ID-1]] = append([]byte(nil), sc.Bytes()...)
	}
	if len(got) < len(methods) {
		t.Fatalf("the server answered %d of %d requests (%v)", len(got), len(methods), sc.Err())
	}
	return got
}

// hashOf is the SPEC §5 hash of v, or of absent when v is nil or null.
func hashOf(t *testing.T, v *jsonv.Value, absent string) string {
	t.Helper()
	if v == nil || v.IsNull() {
		var err error
		if v, err = jsonv.Parse([]byte(absent), jsonv.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := canon.Hash(v)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestBackendServersPinWithAcceptedResourcesError pins real servers whose
// resources/list needs a live backend, with none behind them, so that the
// list answers -32603: @modelcontextprotocol/server-postgres 0.6.2 with a
// database URL on a closed loopback port, and server-gdrive 2025.1.14 with
// a stand-in token and its Google API traffic sent to a closed loopback
// proxy (nothing leaves the machine). With the opt-in the pin succeeds with
// an empty resources section and the tools hashed from the server's own
// bytes; a check afterwards is clean and says so; without the opt-in the
// pin fails as before.
func TestBackendServersPinWithAcceptedResourcesError(t *testing.T) {
	tests := []struct {
		name, pkg string
		setup     func(t *testing.T) (args, env []string)
	}{
		{"server-postgres", "@modelcontextprotocol/server-postgres", func(t *testing.T) ([]string, []string) {
			return []string{"postgresql://" + closedLoopback(t) + "/warden"}, nil
		}},
		{"server-gdrive", "@modelcontextprotocol/server-gdrive", func(t *testing.T) ([]string, []string) {
			creds := filepath.Join(t.TempDir(), "credentials.json")
			if err := os.WriteFile(creds, []byte(`{"access_token": "stand-in", "token_type": "Bearer", "expiry_date": 4102444800000}`), 0o600); err != nil {
				t.Fatal(err)
			}
			return nil, []string{"GDRIVE_CREDENTIALS_PATH=" + creds, "HTTPS_PROXY=http://" + closedLoopback(t), "HTTP_PROXY=http://" + closedLoopback(t)}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := testserver.NPMPackage(t, tc.pkg)
			args, env := tc.setup(t)
			argv := append([]string{"node", filepath.Join(dir, "dist", "index.js")}, args...)
			pinBackendServer(t, argv, env)
		})
	}
}

// pinBackendServer is TestBackendServersPinWithAcceptedResourcesError for
// one server.
func pinBackendServer(t *testing.T, argv, env []string) {
	// What the server itself answers, read without warden.
	raw := rawReplies(t, argv, env, "tools/list", "resources/list")
	var listErr struct {
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw["resources/list"], &listErr); err != nil || listErr.Error == nil || listErr.Error.Code != -32603 {
		t.Fatalf("resources/list without a backend answered %s, want error -32603", raw["resources/list"])
	}
	reply, err := jsonv.Parse(raw["tools/list"], jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tools := reply.Get("result").Get("tools")
	if tools == nil || tools.Kind != jsonv.Array || len(tools.Items) == 0 {
		t.Fatalf("tools/list answered %s", raw["tools/list"])
	}
	var envFlags []string
	for _, e := range env {
		envFlags = append(envFlags, "--env", e)
	}
	warden := func(args ...string) (int, string, string) {
		return run(t, append(append(args, envFlags...), append([]string{"--"}, argv...)...)...)
	}

	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	code, out, errs := warden("pin", "--lock", lockPath)
	if code != ExitError || !strings.Contains(errs, "resources/list page 1: server answered JSON-RPC error -32603") {
		t.Fatalf("pin without --accept-list-error: exit %d, want 2\n%s%s", code, out, errs)
	}

	code, out, errs = warden("pin", "--lock", lockPath, "--accept-list-error", "resources=-32603")
	if code != ExitClean {
		t.Fatalf("pin --accept-list-error resources=-32603: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out+errs, "ECONNREFUSED") {
		t.Errorf("the pin quotes the server's error:\n%s%s", out, errs)
	}
	l, err := lock.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Resources) != 0 || len(l.Prompts) != 0 {
		t.Errorf("resources %d, prompts %d: want both sections empty", len(l.Resources), len(l.Prompts))
	}
	if got := l.Pin.AcceptedListErrors; len(got) != 1 || got[0] != (lock.AcceptedListError{List: "resources", Code: -32603}) {
		t.Errorf("pin.accepted_list_errors = %+v", got)
	}
	if len(l.Tools) != len(tools.Items) {
		t.Fatalf("the lock pins %d tools, the server lists %d", len(l.Tools), len(tools.Items))
	}
	byName := map[string]lock.Tool{}
	for _, tl := range l.Tools {
		byName[tl.Name] = tl
	}
	for _, wire := range tools.Items {
		name, _ := wire.Get("name").Str()
		got, ok := byName[name]
		if !ok {
			t.Errorf("tool %s is not in the lock", name)
			continue
		}
		want := map[string][2]string{
			"description_hash":   {got.DescriptionHash, hashOf(t, wire.Get("description"), `""`)},
			"input_schema_hash":  {got.InputSchemaHash, hashOf(t, wire.Get("inputSchema"), `{}`)},
			"annotations_hash":   {got.AnnotationsHash, hashOf(t, wire.Get("annotations"), `null`)},
			"output_schema_hash": {got.OutputSchemaHash, hashOf(t, wire.Get("outputSchema"), `null`)},
		}
		for field, pair := range want {
			if pair[0] != pair[1] {
				t.Errorf("tools/%s %s = %s, the server's bytes hash to %s", name, field, pair[0], pair[1])
			}
		}
	}
	if err := lock.Verify(l); err != nil {
		t.Errorf("the lock does not verify: %v", err)
	}

	code, out, errs = warden("check", "--lock", lockPath)
	if code != ExitClean || !strings.HasPrefix(out, "OK no drift vs "+lockPath+"\n") ||
		!strings.Contains(out, "note: resources/list answered JSON-RPC error -32603, accepted as an empty section as at pin (pin.accepted_list_errors)\n") {
		t.Fatalf("check: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out+errs, "ECONNREFUSED") {
		t.Errorf("the check quotes the server's error:\n%s%s", out, errs)
	}
}
