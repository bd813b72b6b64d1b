// Package testserver builds and starts the MCP fixture servers that live
// under testdata/ (testdata/servers/sdkserver, testdata/servers/rawserver,
// testdata/demo/server), so that tests in any package of the module can run
// warden against real processes instead of mocks.
//
// Binaries are built with the go command on first use, once per test
// process and package, into a temporary directory private to that process;
// directories left behind by test processes that have since died are swept
// on the next build.
//
// The pinned npm servers under testdata/npm are not built here (npm ci
// installs them); NPMScript locates their entry points.
package testserver

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Entry points of the npm servers pinned in testdata/npm/package.json,
// relative to the repository root. Launch them as "node <script>".
const (
	// MemoryServerJS is @modelcontextprotocol/server-memory 2026.1.26.
	// It reads and writes its knowledge graph at $MEMORY_FILE_PATH (only
	// when a tool is called), so point that at a temporary file.
	MemoryServerJS = "testdata/npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js"
	// EverythingServerJS is @modelcontextprotocol/server-everything
	// 2026.1.26. Its first argument selects the transport: "stdio" (the
	// default), "sse" or "streamableHttp"; the HTTP ones listen on $PORT.
	EverythingServerJS = "testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
	// EverythingNextServerJS is server-everything 2026.8.31, installed
	// under the alias server-everything-next: the same tool names as
	// EverythingServerJS with changed schemas and annotations, i.e. real
	// upstream drift.
	EverythingNextServerJS = "testdata/npm/node_modules/server-everything-next/dist/index.js"
	// ModernServerJS is a fixture built on the official TypeScript SDK
	// 2.4.0 that speaks the 2026-07-28 revision: "-mode strict" serves only
	// that revision, "-mode dual" (the default) the 2025 era too. With
	// "-http ADDR" it serves streamable HTTP and follows StartHTTP's
	// conventions, so StartHTTP(t, "node", script, "-mode", m) runs it.
	ModernServerJS = "testdata/npm/modern-server.mjs"
)

// buildTimeout bounds one go build. A cold build of an SDK-based fixture
// takes about a minute on a 2-core machine with an empty build cache, so
// this only trips when something is broken (a hung module download, say).
const buildTimeout = 5 * time.Minute

var (
	rootOnce sync.Once
	root     string
	rootErr  error

	dirOnce sync.Once
	binDir  string
	dirErr  error

	buildsMu sync.Mutex
	builds   = map[string]*buildResult{}
)

// buildResult is the outcome of building one package, shared by every
// caller in the process.
type buildResult struct {
	once sync.Once
	path string
	err  error
}

// RepoRoot returns the root of the module, found by walking up from the
// working directory (a test's package directory) to the first go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	rootOnce.Do(func() { root, rootErr = findRoot() })
	if rootErr != nil {
		t.Fatalf("testserver: %v", rootErr)
	}
	return root
}

func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Build compiles the main package at pkg, a slash-separated path relative to
// the repository root such as "testdata/servers/rawserver", and returns the
// absolute path of the binary. The first call for a package builds it; later
// calls in the same process, from any test, return the same binary (or the
// same failure). It fails the test if the build fails.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	r := RepoRoot(t)
	pkg = strings.TrimPrefix(filepath.ToSlash(filepath.Clean(pkg)), "./")

	buildsMu.Lock()
	b := builds[pkg]
	if b == nil {
		b = &buildResult{}
		builds[pkg] = b
	}
	buildsMu.Unlock()

	// Building outside the map lock lets different packages build in
	// parallel while callers of the same package wait for one build.
	b.once.Do(func() { b.path, b.err = goBuild(r, pkg) })
	if b.err != nil {
		t.Fatalf("testserver: %v", b.err)
	}
	return b.path
}

// goBuild runs "go build -o DIR/NAME ./pkg" in the repository root. The
// environment is inherited, so GOFLAGS and friends apply as they do to the
// test itself.
func goBuild(root, pkg string) (string, error) {
	dir, err := buildDir()
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, strings.ReplaceAll(pkg, "/", "_"))
	if runtime.GOOS == "windows" {
		out += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", out, "./"+pkg)
	cmd.Dir = root
	var output bytes.Buffer
	cmd.Stdout = &output
	cmd.Stderr = &output
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("go build ./%s: %v", pkg, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(buildTimeout):
		_ = cmd.Process.Kill()
		<-done
		err = fmt.Errorf("timed out after %v", buildTimeout)
	}
	if err != nil {
		return "", fmt.Errorf("go build ./%s: %v\n%s", pkg, err, output.Bytes())
	}
	return out, nil
}

// buildDir returns this process's binary directory, creating it on first
// use. Its name carries the PID, which lets later processes remove the
// directories of processes that no longer exist: a test binary has no hook
// that runs at exit, so this is how built fixtures avoid piling up.
func buildDir() (string, error) {
	dirOnce.Do(func() {
		parent := filepath.Join(os.TempDir(), "warden-testserver")
		if dirErr = os.MkdirAll(parent, 0o755); dirErr != nil {
			return
		}
		sweep(parent)
		binDir, dirErr = os.MkdirTemp(parent, fmt.Sprintf("pid%d-", os.Getpid()))
	})
	return binDir, dirErr
}

// urlTimeout bounds how long StartHTTP waits for the server's URL line.
const urlTimeout = 20 * time.Second

// StartHTTP starts bin (a fixture built with Build) serving over HTTP and
// returns the URL it prints as its first stdout line, e.g.
// "http://127.0.0.1:41234/mcp". args are passed to bin unchanged; if they
// contain neither -http nor -sse, "-http 127.0.0.1:0" is appended, so
// StartHTTP(t, bin) serves streamable HTTP on a free loopback port and
// StartHTTP(t, bin, "-sse", "127.0.0.1:0") serves the legacy SSE transport.
//
// The server's stdin is a pipe that stays open for the life of the test
// (the fixtures exit when it closes, so even a test process that dies
// cannot leak them); cleanup kills the server and waits for it. If the test
// failed, the server's stderr is logged.
func StartHTTP(t testing.TB, bin string, args ...string) string {
	t.Helper()
	hasAddr := false
	for _, a := range args {
		switch strings.TrimLeft(a, "-") {
		case "http", "sse":
			hasAddr = true
		}
		if strings.HasPrefix(a, "-http=") || strings.HasPrefix(a, "--http=") ||
			strings.HasPrefix(a, "-sse=") || strings.HasPrefix(a, "--sse=") {
			hasAddr = true
		}
	}
	if !hasAddr {
		args = append(args, "-http", "127.0.0.1:0")
	}

	cmd := exec.Command(bin, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("testserver: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("testserver: %v", err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("testserver: start %s: %v", bin, err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("testserver: stderr of %s %s:\n%s", filepath.Base(bin), strings.Join(args, " "), stderr.String())
		}
	})

	lines := make(chan string, 1)
	go func() {
		br := bufio.NewReader(stdout)
		line, err := br.ReadString('\n')
		if err == nil {
			lines <- strings.TrimSpace(line)
		}
		close(lines)
		// Keep draining so a chatty server never blocks on a full pipe.
		_, _ = io.Copy(io.Discard, br)
	}()
	select {
	case url, ok := <-lines:
		if !ok {
			t.Fatalf("testserver: %s exited before printing its URL; stderr:\n%s", filepath.Base(bin), stderr.String())
		}
		if !strings.HasPrefix(url, "http://") {
			t.Fatalf("testserver: %s printed %q, want a URL", filepath.Base(bin), url)
		}
		return url
	case <-time.After(urlTimeout):
		t.Fatalf("testserver: %s printed no URL within %v; stderr:\n%s", filepath.Base(bin), urlTimeout, stderr.String())
		return ""
	}
}

// NPMScript returns the absolute path of a script installed under
// testdata/npm (one of the *ServerJS constants). It fails the test with the
// command to run if the npm packages are not installed.
func NPMScript(t testing.TB, script string) string {
	t.Helper()
	p := filepath.Join(RepoRoot(t), filepath.FromSlash(script))
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("testserver: %s is missing; run \"npm ci\" in testdata/npm", script)
	}
	return p
}

// NodeScript is NPMScript for a test that runs the script with node: it
// skips the test when node is not installed.
func NodeScript(t testing.TB, script string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	return NPMScript(t, script)
}

// Upgrade is a real upstream release pair installed exactly under
// testdata/npm (package.json pins each under an alias): From and To are
// package directories under testdata/npm/node_modules.
type Upgrade struct {
	Name, From, To string
}

// Upgrades are the real upgrades the reviewer-facing reports are tested
// against.
func Upgrades() []Upgrade {
	return []Upgrade{
		{"server-everything 2025.5.12 to 2025.11.25", "server-everything-2025.5.12", "server-everything-2025.11.25"},
		{"server-everything 2025.11.25 to 2026.8.31", "server-everything-2025.11.25", "server-everything-next"},
		{"server-memory 2025.4.25 to 2026.8.31", "server-memory-2025.4.25", "server-memory-next"},
	}
}

// NPMPackage returns the absolute directory of a package installed under
// testdata/npm/node_modules, whose server is dist/index.js. It skips the
// test when node is not installed and fails it with the command to run
// when the package is not.
func NPMPackage(t testing.TB, name string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir := filepath.Join(RepoRoot(t), "testdata", "npm", "node_modules", name)
	if _, err := os.Stat(filepath.Join(dir, "dist", "index.js")); err != nil {
		t.Fatalf("testserver: %s is not installed; run \"npm ci --ignore-scripts\" in testdata/npm", name)
	}
	return dir
}

// IsolatedEverything returns the entry script of server-everything
// 2026.8.31 as installed alone in testdata/npm-isolated: laid out the way
// npx (and the community corpus's attester) installs it. In testdata/npm
// the SDK is hoisted beside zod 3 for the other fixtures and renders this
// server's zod 4 schemas without their bounds, so that copy shows another
// surface. It skips without node and fails when the fixture is missing.
func IsolatedEverything(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	script := filepath.Join(RepoRoot(t), "testdata", "npm-isolated", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("testserver: server-everything 2026.8.31 is not installed; run \"npm ci --ignore-scripts\" in testdata/npm-isolated")
	}
	return script
}

// lockedBuffer is a size-capped bytes.Buffer safe for the copying goroutine
// of os/exec and a concurrent reader.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// maxStderr caps what lockedBuffer keeps: enough for any diagnostic,
// bounded even if a server floods.
const maxStderr = 1 << 20

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := maxStderr - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
