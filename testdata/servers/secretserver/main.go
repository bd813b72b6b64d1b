// Command secretserver is an MCP server (newline-delimited JSON-RPC over
// stdio, no SDK so nothing validates or rewrites what it declares) whose
// surface is full of planted, fake secrets of every pattern warden scans
// for: in tool names, descriptions, enum values, defaults, examples,
// resource URIs and prompt descriptions. warden's no-leak test pins and
// checks it and greps every output for the raw secrets.
//
// The secrets are assembled at run time from pieces, so this file does not
// itself trip secret scanners; the test builds the same strings with
// Secrets().
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// secrets returns the planted values by rule: each is fake and matches the
// pattern of its vendor (or the entropy rule).
func secrets() map[string]string {
	return map[string]string{
		"openai":  "sk" + "-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv",
		"github":  "gh" + "p_" + strings.Repeat("aB3dE", 7) + "f",
		"aws":     "AK" + "IA" + "Q7XK2M9P4R8T1W6Z",
		"slack":   "xo" + "xb-" + "2718281828-aZ9bY8cX7w",
		"privkey": "-----BEGIN RSA " + "PRIVATE KEY-----",
		"jwt":     "ey" + "JhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"entropy": "Zx9Qw2Lk7Vb4Np1Rt6Ys3Hd8Gf5Jm0CuE",
		// Identities: the lock format must store these (entry names and
		// URIs), so they may appear as targets but never in snippets,
		// messages or details.
		"aws_name":    "AK" + "IA" + "Z1Y2X3W4V5U6T7S8",
		"entropy_uri": "Qm8Rk2Tz6Wp4Ys9Lx3Vn7Bc5Hd1Jf0GaE",
	}
}

// surface declares the planted secrets. Hidden ones sit only in values the
// lock hashes (descriptions, defaults, examples); with stored set, an enum
// member and a tool name — values the lock format stores verbatim — carry
// secrets too, which warden pin must refuse to write.
func surface(mutated, stored bool) map[string]any {
	s := secrets()
	desc := "Deploys things. Use key " + s["openai"] + " and " + s["privkey"]
	if mutated {
		desc += " (updated; token " + s["slack"] + ")"
	}
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"region": map[string]any{"type": "string", "enum": []any{"eu", "us"}, "default": s["github"] + " " + s["aws"]},
			"auth":   map[string]any{"type": "string", "examples": []any{s["jwt"]}, "$ref": "#/$defs/tok"},
		},
		"$defs": map[string]any{"tok": map[string]any{"type": "string", "default": s["entropy"]}},
	}
	tools := []any{
		map[string]any{"name": "deploy", "description": desc, "inputSchema": schema},
	}
	if stored {
		tools = append(tools,
			map[string]any{"name": "rotate_" + s["aws_name"], "description": "Rotates.", "inputSchema": map[string]any{"type": "object"}},
			map[string]any{"name": "pick", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				"k": map[string]any{"enum": []any{s["aws_name"]}}}}},
		)
	}
	return map[string]any{
		"tools/list": map[string]any{"tools": tools},
		"resources/list": map[string]any{"resources": []any{
			map[string]any{"uri": "https://example.com/cfg?token=" + s["entropy_uri"], "name": "cfg", "description": "Config with " + s["github"]},
		}},
		"prompts/list": map[string]any{"prompts": []any{
			map[string]any{"name": "ask", "description": "Ask with " + s["jwt"]},
		}},
	}
}

func main() {
	lists := surface(os.Getenv("SECRET_MUTATE") == "1", os.Getenv("SECRET_STORED") == "1")
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue // notifications and junk get no reply
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{
				"protocolVersion": "2025-06-18",
				"capabilities":    map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "prompts": map[string]any{}},
				"serverInfo":      map[string]any{"name": "secretserver", "version": "1.0.0"},
			}
		case "ping":
			result = map[string]any{}
		default:
			r, ok := lists[req.Method]
			if !ok {
				out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
				continue
			}
			result = r
		}
		if err := out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result}); err != nil {
			fmt.Fprintln(os.Stderr, "write:", err)
			return
		}
	}
}
