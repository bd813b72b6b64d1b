package ops

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/testserver"
)

var updateRealServers = flag.Bool("update-realservers", false,
	"rewrite the golden locks under testdata/realservers from the current capture")

// realServer is a published MCP server installed exactly under
// testdata/npm (its package.json pins each one) and the launch its golden
// locks under testdata/realservers were pinned with.
type realServer struct {
	// name is the base name of the golden locks: name.lock (2025 era)
	// and, for a server that speaks 2026-07-28, name.modern.lock.
	name string
	// pkg is the package's directory under testdata/npm/node_modules;
	// "" for a script of testdata/npm itself.
	pkg string
	// script is the server's entry point inside pkg (its "bin").
	script string
	// args follow the script; like the script they are in the lock.
	args []string
	// accept is the capture's AcceptListErrors, for a list the server
	// cannot answer without its backend.
	accept map[string]int64
	// advertises are the lists the server's initialize capabilities
	// name, in the order tools, resources, prompts.
	advertises []string
}

// The lists' names, as in the capabilities and the lock's sections.
const (
	listTools     = "tools"
	listResources = "resources"
	listPrompts   = "prompts"
)

var (
	toolsOnly = []string{listTools}
	allLists  = []string{listTools, listResources, listPrompts}
)

// realServers are every npm server the golden locks cover. Each one starts
// and lists offline: those that need a key get a dummy one (realServerEnv)
// and list without using it; server-postgres and server-gdrive answer
// resources/list with -32603 without a database or a drive, and are pinned
// with that error accepted, as issue 22 item 6 asks.
func realServers() []realServer {
	dist := "dist/index.js"
	return []realServer{
		{"server-everything-2025.5.12", "server-everything-2025.5.12", dist, nil, nil, allLists},
		{"server-everything-2025.11.25", "server-everything-2025.11.25", dist, nil, nil, allLists},
		{"server-everything-2026.1.26", "@modelcontextprotocol/server-everything", dist, nil, nil, allLists},
		{"server-everything-2026.8.31", "server-everything-next", dist, nil, nil, allLists},
		{"server-memory-2025.4.25", "server-memory-2025.4.25", dist, nil, nil, toolsOnly},
		{"server-memory-2026.1.26", "@modelcontextprotocol/server-memory", dist, nil, nil, toolsOnly},
		{"server-memory-2026.8.31", "server-memory-next", dist, nil, nil, []string{listTools, listResources}},
		{"server-postgres-0.6.2", "@modelcontextprotocol/server-postgres", dist, []string{"postgresql://127.0.0.1:1/warden"},
			map[string]int64{listResources: -32603}, []string{listTools, listResources}},
		{"server-gdrive-2025.1.14", "@modelcontextprotocol/server-gdrive", dist, nil,
			map[string]int64{listResources: -32603}, []string{listTools, listResources}},
		{"server-filesystem-2025.7.29", "server-filesystem-2025.7.29", dist, []string{"."}, nil, toolsOnly},
		{"server-filesystem-2025.11.25", "server-filesystem-2025.11.25", dist, []string{"."}, nil, toolsOnly},
		{"server-filesystem-2026.8.31", "server-filesystem-2026.8.31", dist, []string{"."}, nil, toolsOnly},
		{"server-sequential-thinking-0.6.2", "server-sequential-thinking-0.6.2", dist, nil, nil, toolsOnly},
		{"server-sequential-thinking-2026.8.31", "server-sequential-thinking-2026.8.31", dist, nil, nil, toolsOnly},
		{"server-github-2025.4.8", "server-github-2025.4.8", dist, nil, nil, toolsOnly},
		{"server-google-maps-0.6.2", "server-google-maps-0.6.2", dist, nil, nil, toolsOnly},
		{"server-slack-2025.4.25", "server-slack-2025.4.25", dist, nil, nil, toolsOnly},
		{"server-brave-search-0.6.2", "server-brave-search-0.6.2", dist, nil, nil, toolsOnly},
		{"server-gitlab-2025.4.25", "server-gitlab-2025.4.25", dist, nil, nil, toolsOnly},
		{"server-aws-kb-retrieval-0.6.2", "server-aws-kb-retrieval-0.6.2", dist, nil, nil, toolsOnly},
		{"server-everart-0.6.2", "server-everart-0.6.2", dist, nil, nil, []string{listTools, listResources}},
		{"context7-mcp-4.1.1", "context7-mcp-4.1.1", dist, nil, nil, allLists},
		{"tavily-mcp-0.2.22", "tavily-mcp-0.2.22", "build/index.js", nil, nil, toolsOnly},
		{"firecrawl-mcp-3.26.0", "firecrawl-mcp-3.26.0", dist, nil, nil, toolsOnly},
		{"notion-mcp-server-2.5.2", "notion-mcp-server-2.5.2", "bin/cli.mjs", nil, nil, toolsOnly},
		{"mcp-hello-world-1.1.2", "mcp-hello-world-1.1.2", "build/stdio.js", nil, nil, allLists},
		{"exa-mcp-server-3.4.1", "exa-mcp-server-3.4.1", "dist/stdio.cjs", nil, nil, allLists},
		{"antv-mcp-server-chart-0.9.10", "antv-mcp-server-chart-0.9.10", "build/index.js", nil, nil, toolsOnly},
		{"mcp-server-airbnb-0.3.0", "mcp-server-airbnb-0.3.0", dist, nil, nil, toolsOnly},
		{"airtable-mcp-server-1.14.0", "airtable-mcp-server-1.14.0", "dist/main.js", nil, nil, toolsOnly},
		{"mcp-server-asana-1.8.0", "mcp-server-asana-1.8.0", dist, nil, nil, allLists},
		{"circleci-mcp-server-0.20.0", "circleci-mcp-server-0.20.0", dist, nil, nil, []string{listTools, listResources}},
		{"shortcut-mcp-0.25.0", "shortcut-mcp-0.25.0", dist, nil, nil, toolsOnly},
		{"git-mcp-server-2.15.3", "git-mcp-server-2.15.3", dist, nil, nil, allLists},
		{"linear-mcp-1.2.0", "linear-mcp-1.2.0", "build/index.js", nil, nil, toolsOnly},
		{"zereight-mcp-gitlab-2.1.64", "zereight-mcp-gitlab-2.1.64", "build/index.js", nil, nil, []string{listTools, listPrompts}},
		{"pinecone-mcp-0.3.0", "pinecone-mcp-0.3.0", dist, nil, nil, toolsOnly},
		{"eslint-mcp-0.3.13", "eslint-mcp-0.3.13", "src/mcp-cli.js", nil, nil, toolsOnly},
		{"perplexity-mcp-server-1.2.1", "perplexity-mcp-server-1.2.1", dist, nil, nil, toolsOnly},
		{"brave-search-mcp-server-2.1.4", "brave-search-mcp-server-2.1.4", dist, nil, nil, toolsOnly},
		{"kazuph-mcp-fetch-1.6.3", "kazuph-mcp-fetch-1.6.3", dist, nil, nil, []string{listTools, listResources}},
		// Not a published server but the published TypeScript SDK 2.4.0
		// serving both eras: the one server here that also speaks
		// 2026-07-28 besides context7.
		{"sdk-2.4.0-dual", "", "modern-server.mjs", []string{"-mode", "dual"}, nil, []string{listTools, listResources, listPrompts}},
	}
}

// realServerEnv is every server's environment beyond warden's allowlist:
// dummy credentials that let a server start and list, its state files
// under tmp, and tmp as HOME so no server writes to the tester's home.
// None of it reaches the lock.
func realServerEnv(tmp string) []string {
	env := []string{
		"HOME=" + tmp,
		"MEMORY_FILE_PATH=" + filepath.Join(tmp, "memory.jsonl"),
		"GDRIVE_CREDENTIALS_PATH=" + filepath.Join(tmp, "gdrive-credentials.json"),
		// Endpoints on the loopback's discard port, for servers that
		// want a base URL at start.
		"GITLAB_API_URL=http://127.0.0.1:9/api/v4",
		"SEARXNG_URL=http://127.0.0.1:9",
		"AWS_REGION=us-east-1",
	}
	for _, name := range []string{
		"GITHUB_PERSONAL_ACCESS_TOKEN", "GOOGLE_MAPS_API_KEY", "SLACK_BOT_TOKEN", "SLACK_TEAM_ID",
		"BRAVE_API_KEY", "GITLAB_PERSONAL_ACCESS_TOKEN", "TAVILY_API_KEY", "FIRECRAWL_API_KEY",
		"EXA_API_KEY", "AIRTABLE_API_KEY", "ASANA_ACCESS_TOKEN", "CIRCLECI_TOKEN",
		"SHORTCUT_API_TOKEN", "LINEAR_API_KEY", "PINECONE_API_KEY", "PERPLEXITY_API_KEY",
		"EVERART_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "NOTION_TOKEN",
	} {
		env = append(env, name+"=dummy")
	}
	return env
}

// realServerClock is the pins' clock: with it and a fixed warden version
// nothing in a lock varies from run to run, so a golden lock is compared
// whole, without normalising any field.
func realServerClock() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }

// realServerSlots bounds the servers started at once: the machine has two
// cores, and each node start takes most of one.
const realServerSlots = 2

// TestRealServerLocks pins every real server with the current capture and
// requires each lock to equal its golden file under testdata/realservers
// byte for byte: in the 2025 era (--protocol legacy) for every server, and
// in 2026-07-28 (--protocol modern) for those with a name.modern.lock. The
// goldens were written by warden before it called only the lists a server
// advertises, so a pass proves that change left every lock as it was.
//
// It also asks each server, with an initialize of its own, which lists it
// advertises, and checks that every list it does not advertise is empty in
// its golden lock: a server serving items on an unadvertised list would
// lose them from its lock under "advertised lists only".
//
// -update-realservers rewrites the goldens (and, for each server, tries
// the modern era, keeping name.modern.lock only where it pins).
func TestRealServerLocks(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	root := testserver.RepoRoot(t)
	npm := filepath.Join(root, "testdata", "npm")
	golden := filepath.Join(root, "testdata", "realservers")
	if *updateRealServers {
		if err := os.MkdirAll(golden, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	slots := make(chan struct{}, realServerSlots)
	var mu sync.Mutex
	var unadvertised []string
	for _, srv := range realServers() {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			script := srv.script
			if srv.pkg != "" {
				script = "node_modules/" + srv.pkg + "/" + srv.script
			}
			if _, err := os.Stat(filepath.Join(npm, filepath.FromSlash(script))); err != nil {
				t.Skipf("%s is not installed: run \"npm ci --ignore-scripts\" in testdata/npm", script)
			}
			slots <- struct{}{}
			defer func() { <-slots }()
			tmp := t.TempDir()
			if err := os.WriteFile(filepath.Join(tmp, "gdrive-credentials.json"), []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			env := realServerEnv(tmp)
			argv := append([]string{"node", script}, srv.args...)

			legacyPath := filepath.Join(golden, srv.name+".lock")
			got, err := pinRealServer(t, npm, argv, env, srv.accept, capture.ProtocolLegacy)
			if err != nil {
				t.Fatalf("pin --protocol legacy: %v", err)
			}
			matchGolden(t, legacyPath, got)

			modernPath := filepath.Join(golden, srv.name+".modern.lock")
			if *updateRealServers {
				if got, err := pinRealServer(t, npm, argv, env, srv.accept, capture.ProtocolModern); err == nil {
					matchGolden(t, modernPath, got)
				} else if err := os.Remove(modernPath); err != nil && !errors.Is(err, os.ErrNotExist) {
					t.Fatal(err)
				}
			} else if _, err := os.Stat(modernPath); err == nil {
				got, err := pinRealServer(t, npm, argv, env, srv.accept, capture.ProtocolModern)
				if err != nil {
					t.Fatalf("pin --protocol modern: %v", err)
				}
				matchGolden(t, modernPath, got)
			}

			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			lists, err := advertisedLists(ctx, npm, argv, env)
			if err != nil {
				t.Fatalf("initialize: %v", err)
			}
			if !slices.Equal(lists, srv.advertises) {
				t.Errorf("advertised lists = %v, the table says %v", lists, srv.advertises)
			}
			l, err := lock.ReadFile(legacyPath)
			if err != nil {
				t.Fatal(err)
			}
			for list, n := range sectionSizes(l) {
				if n > 0 && !slices.Contains(lists, list) {
					t.Errorf("%d %s served without %q in the capabilities: this lock changes when only advertised lists are called", n, list, list)
					mu.Lock()
					unadvertised = append(unadvertised, srv.name+" "+list)
					mu.Unlock()
				}
			}
		})
	}
	t.Cleanup(func() {
		if len(unadvertised) > 0 {
			slices.Sort(unadvertised)
			t.Logf("lists served but not advertised: %s", strings.Join(unadvertised, ", "))
		}
	})
}

// pinRealServer pins the server in the given era with Pin, as the CLI
// does, and returns the lock file's bytes.
func pinRealServer(t *testing.T, dir string, argv, env []string, accept map[string]int64, era capture.Protocol) ([]byte, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "warden.lock")
	_, err := Pin(context.Background(), PinOptions{
		Target: Target{
			Argv: argv, Dir: dir, Env: env, Protocol: era, AcceptListErrors: accept,
			// Generous: two servers start at once on two shared cores,
			// and a timeout here would only be a false failure.
			Timeout: 2 * time.Minute,
		},
		LockPath:   path,
		Version:    "dev",
		Now:        realServerClock,
		NoSnapshot: true,
	})
	if err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// matchGolden compares a lock with its golden file, or with
// -update-realservers writes it there.
func matchGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *updateRealServers {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden lock: %v (-update-realservers writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the lock pinned now:\n%s", filepath.Base(path), firstDifference(want, got))
	}
}

// firstDifference shows the first line where two files differ, with the
// line before it, so a failure names the field that changed.
func firstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			continue
		}
		before := ""
		if i > 0 && i-1 < len(w) {
			before = w[i-1]
		}
		return fmt.Sprintf("line %d, after %q:\n  golden: %q\n  now:    %q", i+1, before, wl, gl)
	}
	return "same lines, different bytes"
}

// sectionSizes counts the items of a lock's three sections.
func sectionSizes(l *lock.Lock) map[string]int {
	return map[string]int{listTools: len(l.Tools), listResources: len(l.Resources), listPrompts: len(l.Prompts)}
}

// advertisedLists starts the server once more and asks it, with a bare
// 2025-era initialize of its own, which of the three lists its
// capabilities name. It is independent of warden's capture, so what it
// reports is the server's answer, not warden's reading of it.
func advertisedLists(ctx context.Context, dir string, argv, env []string) ([]string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	ownGroup(cmd)
	cmd.Cancel = func() error { killTree(cmd); return nil }
	// A server's children may hold stdout open after it is killed.
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	defer func() {
		killTree(cmd)
		_ = cmd.Wait()
	}()
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"warden-test","version":"0"}}}` + "\n"
	if _, err := io.WriteString(stdin, initialize); err != nil {
		return nil, fmt.Errorf("write initialize: %w", err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result *struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			} `json:"result"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || string(msg.ID) != "1" {
			continue // a log line on stdout, or a notification
		}
		if msg.Error != nil || msg.Result == nil {
			return nil, fmt.Errorf("initialize answered without a result (error %v)", msg.Error)
		}
		var lists []string
		for _, list := range allLists {
			if _, ok := msg.Result.Capabilities[list]; ok {
				lists = append(lists, list)
			}
		}
		return lists, nil
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return nil, errors.New("stdout ended before the initialize result")
}
