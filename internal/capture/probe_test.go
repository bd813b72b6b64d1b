//go:build unix

package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/testserver"
)

const probePkg = "testdata/servers/probeserver"

// probeCase is one answer to the server/discover probe, as probeserver sends
// it: the exact bytes, "$ID" standing for the probe's id.
type probeCase struct {
	name  string
	reply string
	// maxMessage sets Options.MaxMessageBytes when not zero.
	maxMessage int64
	// stdioOnly marks replies HTTP cannot carry: pings (each answer would
	// be a POST of its own) and a process that exits.
	stdioOnly bool
	// exit makes the stdio server exit right after writing the reply.
	exit bool
	// want is the failure's message fragments after "server/discover: ";
	// nil means a well-formed 2025-era answer, captured in the 2025 era.
	want []string
	// orWant, when set, is another failure the case may end in: a ping
	// flood on a slow machine (the race detector, busy cores) can outlast
	// the probe timer while warden answers it. Either way it fails closed
	// and nothing follows the probe.
	orWant []string
}

// repeat is n copies of line, each framed by a newline.
func repeat(line string, n int) string {
	var b strings.Builder
	b.Grow((len(line) + 1) * n)
	for i := range n {
		b.WriteString(strings.ReplaceAll(line, "$N", fmt.Sprint(i)))
		b.WriteByte('\n')
	}
	return b.String()
}

func probeCases() []probeCase {
	const (
		notFound = `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32601,"message":"Method not found"}}` + "\n"
		note     = `{"jsonrpc":"2.0","method":"notifications/progress"}`
		ping     = `{"jsonrpc":"2.0","id":"flood-$N","method":"ping"}`
	)
	long := `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32601,"message":"` + strings.Repeat("x", 5000) + `"}}` + "\n"
	return []probeCase{
		// What 2025-era servers say: the handshake follows.
		{name: "method not found", reply: notFound},
		{name: "method not found with data", reply: `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32601,"message":"Unknown method: server/discover","data":{"method":"server/discover"}}}` + "\n"},
		{name: "invalid params", reply: `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32602,"message":"Invalid request parameters","data":""}}` + "\n"},
		{name: "code 0 as go-sdk", reply: `{"jsonrpc":"2.0","id":$ID,"error":{"code":0,"message":"method \"server/discover\" is invalid during session initialization"}}` + "\n"},
		{name: "server error", reply: `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32000,"message":"Unsupported protocol version"}}` + "\n"},
		{name: "-32022 listing 2025 versions", reply: `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32022,"message":"x","data":{"supported":["2025-11-25","2025-06-18"]}}}` + "\n"},
		{name: "-32022 without data", reply: `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32022,"message":"x"}}` + "\n"},
		{name: "result not a DiscoverResult", reply: `{"jsonrpc":"2.0","id":$ID,"result":{}}` + "\n"},
		{name: "draft DiscoverResult", reply: `{"jsonrpc":"2.0","id":$ID,"result":{"supportedVersions":["DRAFT-2026-v1"],"capabilities":{}}}` + "\n"},
		{name: "members reordered and spaced", reply: ` {"error" : {"message":"Method not found","code":-32601} , "id":$ID,"jsonrpc":"2.0"} ` + "\n"},
		{name: "notifications first", reply: repeat(note, 1000) + notFound},
		{name: "pings first", stdioOnly: true, reply: repeat(ping, 1000) + notFound},
		// Documented: a server that exits on the probe is respawned.
		{name: "exit without a reply", stdioOnly: true, exit: true, reply: ""},

		// Malformed: no evidence of any era, so the capture fails.
		{name: "not JSON", reply: "Method not found\n", want: []string{"not valid JSON"}},
		{name: "duplicate id", reply: `{"jsonrpc":"2.0","id":$ID,"id":$ID,"error":{"code":-32601,"message":"Method not found"}}` + "\n",
			want: []string{`duplicate object key "id"`}},
		{name: "duplicate key in the error", reply: `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32601,"message":"a","message":"b"}}` + "\n",
			want: []string{`duplicate object key "message"`}},
		{name: "duplicate key deep in a result", reply: `{"jsonrpc":"2.0","id":$ID,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true,"listChanged":false}}}}` + "\n",
			want: []string{`duplicate object key "listChanged"`}},
		{name: "over the message limit", maxMessage: 4096, reply: long,
			want: []string{"a message from the server exceeds the limit of 4096 bytes"}},
		{name: "batch", reply: "[" + strings.TrimSuffix(notFound, "\n") + "]\n",
			want: []string{"server sent an array where a JSON-RPC message object was expected"}},
		{name: "no jsonrpc member", reply: `{"id":$ID,"error":{"code":-32601,"message":"Method not found"}}` + "\n",
			want: []string{`server sent a message without "jsonrpc": "2.0"`}},
		{name: "both result and error", reply: `{"jsonrpc":"2.0","id":$ID,"result":{},"error":{"code":-32601,"message":"Method not found"}}` + "\n",
			want: []string{"server sent a response with both a result and an error"}},
		{name: "neither result nor error", reply: `{"jsonrpc":"2.0","id":$ID}` + "\n",
			want: []string{"server sent a response with neither a result nor an error"}},
		{name: "error with id null", reply: `{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}` + "\n",
			want: []string{"server reported error -32601 for an unidentified request"}},
		{name: "result with id null", reply: `{"jsonrpc":"2.0","id":null,"result":{}}` + "\n",
			want: []string{"server answered id null, not the id 1 of the request"}},
		{name: "error with another id", reply: `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}` + "\n",
			want: []string{"server answered id 7, not the id 1 of the request"}},
		{name: "error with the id as a string", reply: `{"jsonrpc":"2.0","id":"$ID","error":{"code":-32601,"message":"Method not found"}}` + "\n",
			want: []string{`server answered id "1", not the id 1 of the request`}},
		{name: "error not an object", reply: `{"jsonrpc":"2.0","id":$ID,"error":"Method not found"}` + "\n",
			want: []string{"server sent an error response whose error is a string, not an object"}},
		{name: "error code a string", reply: `{"jsonrpc":"2.0","id":$ID,"error":{"code":"-32601","message":"Method not found"}}` + "\n",
			want: []string{"server sent an error response without an integer code"}},
		{name: "error code a float", reply: `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32601.0,"message":"Method not found"}}` + "\n",
			want: []string{"server sent an error response without an integer code"}},
		{name: "error without a message", reply: `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32601}}` + "\n",
			want: []string{"server sent error -32601 without a string message"}},
		{name: "error message not a string", reply: `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32601,"message":{"text":"Method not found"}}}` + "\n",
			want: []string{"server sent error -32601 without a string message"}},
		{name: "malformed notification first", reply: `{"jsonrpc":"2.0","method":7}` + "\n" + notFound,
			want: []string{"server sent a message whose method is not a string"}},
		{name: "notification flood", reply: repeat(note, maxUnrelatedMessages+1) + notFound,
			want: []string{"more than 100000 messages arrived without the reply"}},
		{name: "ping flood", stdioOnly: true, reply: repeat(ping, maxUnrelatedMessages+1) + notFound,
			want:   []string{"more than 100000 messages arrived without the reply"},
			orWant: []string{`answering the server's "ping" request: writing to the server's stdin:`, "timeout"}},
		{name: "cut off by an exit", stdioOnly: true, exit: true, reply: strings.TrimSuffix(notFound, "}}\n"),
			want: []string{"reading the server's stdout: the stream ended inside a message (75 bytes after the last newline)"}},
	}
}

// TestCaptureProbeReplies runs every answer to the probe over stdio and over
// Streamable HTTP: a well-formed 2025-era answer leads to initialize (on the
// same process over stdio, a fresh process only when the server exited), and
// a malformed one fails the capture with one line saying what was wrong,
// with no initialize sent after it, on either transport.
func TestCaptureProbeReplies(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t, probePkg)
	const handshake = "initialize,notifications/initialized,tools/list,resources/list,prompts/list"
	for _, tc := range probeCases() {
		for _, transport := range []string{"stdio", "http"} {
			if transport == "http" && tc.stdioOnly {
				continue
			}
			t.Run(tc.name+"/"+transport, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				replyFile, logFile := filepath.Join(dir, "reply"), filepath.Join(dir, "requests")
				if err := os.WriteFile(replyFile, []byte(tc.reply), 0o644); err != nil {
					t.Fatal(err)
				}
				args := []string{"-reply", replyFile, "-requests", logFile}
				o := Options{MaxMessageBytes: tc.maxMessage}
				if transport == "stdio" {
					if tc.exit {
						args = append(args, "-exit-after-reply")
					}
					o.Argv = append([]string{bin}, args...)
				} else {
					if strings.Count(strings.TrimSpace(tc.reply), "\n") > 0 {
						args = append(args, "-events")
					}
					o.URL = testserver.StartHTTP(t, bin, args...)
				}
				s, err := run(t, o)
				data, _ := os.ReadFile(logFile)
				got := strings.Join(strings.Fields(string(data)), ",")

				want := "server/discover"
				switch {
				case tc.want == nil && tc.exit:
					want += ",spawn," + handshake
				case tc.want == nil:
					want += "," + handshake
				}
				if transport == "stdio" {
					want = "spawn," + want
				}
				if got != want {
					t.Errorf("requests %s\nwant     %s", got, want)
				}
				if tc.want != nil {
					want := tc.want
					if tc.orWant != nil && err != nil && !strings.Contains(err.Error(), tc.want[0]) {
						want = tc.orWant
					}
					wantFailure(t, err, Failed, append([]string{"server/discover: "}, want...)...)
					return
				}
				if err != nil {
					t.Fatalf("Capture: %v", err)
				}
				if s.ProtocolVersion != "2025-11-25" || len(s.Tools) != 1 || s.Tools[0].Name != "echo" {
					t.Errorf("captured %s with %d tools, want the 2025-era surface", s.ProtocolVersion, len(s.Tools))
				}
			})
		}
	}
}

// TestCaptureProbeRealLegacyServers: real 2025-era servers from npm (the
// TypeScript SDK 1.x) answer the probe with a well-formed -32601, so the
// handshake follows on the same process: one spawn, a 2025-era version.
func TestCaptureProbeRealLegacyServers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts func(t *testing.T) Options
	}{
		{"server-everything", func(t *testing.T) Options {
			return Options{Argv: []string{"node", testserver.NodeScript(t, testserver.EverythingServerJS)}}
		}},
		{"server-memory", func(t *testing.T) Options {
			return Options{Argv: []string{"node", testserver.NodeScript(t, testserver.MemoryServerJS)},
				Env: []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl")}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := tc.opts(t)
			spawns := 0
			o.started = func(int) { spawns++ }
			s := mustCapture(t, o)
			if EraOf(s.ProtocolVersion) != ProtocolLegacy || len(s.Tools) == 0 {
				t.Errorf("captured %q with %d tools, want a 2025-era surface", s.ProtocolVersion, len(s.Tools))
			}
			if spawns != 1 {
				t.Errorf("%d processes, want the handshake on the probed one", spawns)
			}
		})
	}
}
