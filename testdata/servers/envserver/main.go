// Command envserver is a minimal MCP server on stdio that declares one tool
// per environment variable it was started with: the tool's name is the
// variable's name and its description the value. warden's capture tests use
// it to check, through the ordinary capture path, exactly which variables a
// stdio server receives (the allowlist, --env NAME and --env NAME=VALUE, and
// nothing else). With ENVSERVER_TOOL_NAMED_BY=NAME it also declares a tool
// named by the value of NAME.
//
// Usage:
//
//	envserver
//
// It answers initialize, ping and the three list methods (resources and
// prompts are empty), answers any other request with -32601, ignores
// notifications and exits when stdin closes.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"sort"
	"strings"
)

// request is the part of an incoming JSON-RPC message the server needs.
type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"params"`
}

func main() {
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil || len(req.ID) == 0 || req.Method == "" {
			continue // notifications, responses and noise need no answer
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{
				"protocolVersion": req.Params.ProtocolVersion,
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "warden-envserver", "version": "1.0.0"},
			}
		case "ping":
			result = map[string]any{}
		case "tools/list":
			result = map[string]any{"tools": envTools()}
		case "resources/list":
			result = map[string]any{"resources": []any{}}
		case "prompts/list":
			result = map[string]any{"prompts": []any{}}
		default:
			write(out, map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
			continue
		}
		write(out, map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
}

// envTools returns one tool per environment variable, sorted by name.
func envTools() []any {
	env := os.Environ()
	sort.Strings(env)
	tools := make([]any, 0, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		tools = append(tools, map[string]any{
			"name":        name,
			"description": value,
			"inputSchema": map[string]any{"type": "object"},
		})
	}
	// A server that names a tool after a secret it was handed: the name
	// is stored in the lock verbatim.
	if from := os.Getenv("ENVSERVER_TOOL_NAMED_BY"); from != "" {
		tools = append(tools, map[string]any{"name": os.Getenv(from), "inputSchema": map[string]any{"type": "object"}})
	}
	return tools
}

func write(out *bufio.Writer, msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		os.Exit(1)
	}
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
}
