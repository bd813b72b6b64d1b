package testserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenlock/warden/internal/testserver"
)

const (
	rawPkg  = "testdata/servers/rawserver"
	sdkPkg  = "testdata/servers/sdkserver"
	demoPkg = "testdata/demo/server"
)

func TestRepoRootHasGoMod(t *testing.T) {
	root := testserver.RepoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "module github.com/wardenlock/warden") {
		t.Errorf("RepoRoot() = %s, whose go.mod is not warden's", root)
	}
}

func TestBuildOncePerPackage(t *testing.T) {
	raw := testserver.Build(t, rawPkg)
	sdk := testserver.Build(t, sdkPkg)
	if raw == sdk {
		t.Fatalf("two packages built to the same path %s", raw)
	}
	for _, p := range []string{raw, sdk} {
		if !filepath.IsAbs(p) {
			t.Errorf("Build returned relative path %s", p)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s is not executable: %v", p, fi.Mode())
		}
	}

	// Same package, spelled differently: the cached binary, not a rebuild
	// (a rebuild would take far longer than the bound below).
	start := time.Now()
	again := testserver.Build(t, "./"+rawPkg)
	if again != raw {
		t.Errorf("second Build = %s, want cached %s", again, raw)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cached Build took %v", d)
	}
}

// fakeTB records Fatalf and stops the calling goroutine, as testing.T does,
// so that a failing Build can be observed without failing this test.
type fakeTB struct {
	testing.TB
	msg string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestBuildFailureReportsCompilerOutput(t *testing.T) {
	testserver.RepoRoot(t) // resolve the root with the real t
	f := &fakeTB{}
	done := make(chan string, 1)
	go func() {
		defer func() { done <- "" }()
		done <- testserver.Build(f, "testdata/servers/no-such-server")
	}()
	if p := <-done; p != "" {
		t.Fatalf("Build of a missing package returned %s", p)
	}
	if !strings.Contains(f.msg, "go build ./testdata/servers/no-such-server") {
		t.Errorf("failure message does not name the build: %q", f.msg)
	}
	// The failure is cached like a success.
	f2 := &fakeTB{}
	go func() {
		defer func() { done <- "" }()
		done <- testserver.Build(f2, "testdata/servers/no-such-server")
	}()
	<-done
	if f2.msg != f.msg {
		t.Errorf("second failure = %q, want the cached %q", f2.msg, f.msg)
	}
}

func TestNPMScriptMissing(t *testing.T) {
	testserver.RepoRoot(t)
	f := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		testserver.NPMScript(f, "testdata/npm/node_modules/nope/index.js")
	}()
	<-done
	if !strings.Contains(f.msg, "npm ci") {
		t.Errorf("missing script message lacks the fix: %q", f.msg)
	}
}

// listAll connects an SDK client over tr and returns the names of every
// tool, resource and prompt, following pagination.
func listAll(t *testing.T, tr mcp.Transport) (tools, resources, prompts []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "testserver-test", Version: "0"}, nil)
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools: %v", err)
		}
		tools = append(tools, tool.Name)
	}
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatalf("resources: %v", err)
		}
		resources = append(resources, r.Name)
	}
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatalf("prompts: %v", err)
		}
		prompts = append(prompts, p.Name)
	}
	return tools, resources, prompts
}

func TestStartHTTPStreamableAndSSE(t *testing.T) {
	bin := testserver.Build(t, sdkPkg)
	cases := []struct {
		name      string
		args      []string
		path      string
		transport func(url string) mcp.Transport
	}{
		{"streamable", nil, "/mcp", func(u string) mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: u} }},
		{"streamable-explicit-addr", []string{"-http=127.0.0.1:0"}, "/mcp", func(u string) mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: u} }},
		{"sse", []string{"-sse", "127.0.0.1:0"}, "/sse", func(u string) mcp.Transport { return &mcp.SSEClientTransport{Endpoint: u} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url := testserver.StartHTTP(t, bin, tc.args...)
			if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, tc.path) || strings.Contains(url, ":0/") {
				t.Fatalf("URL = %q, want http://127.0.0.1:PORT%s with a real port", url, tc.path)
			}
			tools, resources, prompts := listAll(t, tc.transport(url))
			if got, want := strings.Join(tools, ","), "list_dir,read_file,search"; got != want {
				t.Errorf("tools = %s, want %s", got, want)
			}
			if got := strings.Join(resources, ","); got != "motd" {
				t.Errorf("resources = %s, want motd", got)
			}
			if got := strings.Join(prompts, ","); got != "summarize" {
				t.Errorf("prompts = %s, want summarize", got)
			}
		})
	}
}
