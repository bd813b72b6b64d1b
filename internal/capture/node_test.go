//go:build unix

package capture

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/testserver"
)

// startNodeHTTP runs a pinned npm server over HTTP on a free loopback port
// and returns host:port once it accepts connections.
func startNodeHTTP(t *testing.T, script, transport string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command("node", script, transport)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
	}
	t.Fatalf("%s %s did not listen on %s", script, transport, addr)
	return ""
}

// TestCaptureTypeScriptSDKServer captures the reference "everything" server,
// built on the TypeScript SDK, over stdio, Streamable HTTP and the legacy
// SSE transport, and requires the same surface from all three.
func TestCaptureTypeScriptSDKServer(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	script := testserver.NPMScript(t, testserver.EverythingServerJS)
	stdio := mustCapture(t, Options{Argv: []string{"node", script}})
	if len(stdio.Tools) == 0 || len(stdio.Resources) == 0 || len(stdio.Prompts) == 0 {
		t.Fatalf("stdio capture is missing sections: %d tools, %d resources, %d prompts",
			len(stdio.Tools), len(stdio.Resources), len(stdio.Prompts))
	}
	for _, tc := range []struct{ transport, path string }{
		{"streamableHttp", "/mcp"},
		{"sse", "/sse"},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			t.Parallel()
			url := "http://" + startNodeHTTP(t, script, tc.transport) + tc.path
			s := mustCapture(t, Options{URL: url})
			equalLines(t, render(s), render(stdio))
		})
	}
}
