package clientconfig

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wardenlock/warden/internal/jsonv"
)

// formsRead names, for the message refusing a file of no known form, every
// form warden reads.
const formsRead = `warden reads "mcpServers" (Claude Code .mcp.json, Cursor, Claude Desktop, ` +
	`Copilot coding agent, Windsurf mcp_config.json), "servers" (VS Code .vscode/mcp.json), ` +
	`"context_servers" (Zed settings.json), "projects" (Claude Code ~/.claude.json) ` +
	`and [mcp_servers.NAME] (Codex config.toml)`

// ParseFile reads a config's bytes, detecting its form from the file's
// name and shape: a .toml file is Codex's config.toml; a JSON or JSONC
// file is read as Parse reads it, its name telling the forms its shape
// alone cannot (see detect). name is kept as Config.Path and in reports.
func ParseFile(name string, data []byte, env Env) (*Config, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxFileBytes)
	}
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".toml":
		return parseCodex(name, data, env)
	case ".json", ".jsonc", "":
		return parseJSON(name, data, env)
	default:
		return nil, fmt.Errorf("a %s file is not an MCP client config; %s", quote(ext), formsRead)
	}
}

// detect decides the form of a JSON config and returns the object of its
// servers (nil for FormClaudeUser, whose servers are in several places).
//
// "context_servers" is Zed's. A file named .claude.json, or one whose
// "projects" hold "mcpServers", is Claude Code's user file. Of the
// "mcpServers" files, a Copilot coding agent configuration is one named
// copilot-mcp.json, mcp-config.json (Copilot CLI) or .github/copilot/mcp.json,
// or one whose servers carry "tools" or type "local", neither of which
// another client writes; a Windsurf one is named mcp_config.json or has a
// server with "serverUrl".
func detect(name string, doc *jsonv.Value) (Form, *jsonv.Value, error) {
	mcp, vscode, zed := doc.Get("mcpServers"), doc.Get("servers"), doc.Get("context_servers")
	var present []string
	for _, k := range []struct {
		key string
		v   *jsonv.Value
	}{{"mcpServers", mcp}, {"servers", vscode}, {"context_servers", zed}} {
		if k.v != nil {
			present = append(present, fmt.Sprintf("%q", k.key))
		}
	}
	base := filepath.Base(filepath.ToSlash(name))
	switch {
	case len(present) > 1:
		return "", nil, fmt.Errorf("the config has %s; keep one", strings.Join(present, " and "))
	case zed != nil:
		return FormZed, zed, nil
	case base == ".claude.json" || hasProjectServers(doc):
		return FormClaudeUser, nil, nil
	case mcp != nil && (copilotName(name) || anyServerHas(mcp, isCopilotEntry)):
		return FormCopilot, mcp, nil
	case mcp != nil && (base == "mcp_config.json" || anyServerHas(mcp, func(v *jsonv.Value) bool { return v.Has("serverUrl") })):
		return FormWindsurf, mcp, nil
	case mcp != nil:
		return FormMCPServers, mcp, nil
	case vscode != nil:
		return FormVSCode, vscode, nil
	}
	return "", nil, fmt.Errorf("no MCP servers in a form warden knows; %s", formsRead)
}

// serversKey is the key that holds the servers of a form.
func serversKey(f Form) string {
	switch f {
	case FormVSCode:
		return "servers"
	case FormZed:
		return "context_servers"
	case FormCodex:
		return "mcp_servers"
	}
	return "mcpServers"
}

// copilotName reports whether a file's name says it is a Copilot coding
// agent (or Copilot CLI) configuration.
func copilotName(name string) bool {
	slash := filepath.ToSlash(name)
	switch filepath.Base(slash) {
	case "copilot-mcp.json", "mcp-config.json":
		return true
	}
	return slash == ".github/copilot/mcp.json" || strings.HasSuffix(slash, "/.github/copilot/mcp.json")
}

// isCopilotEntry reports whether a server entry has a key only Copilot
// writes.
func isCopilotEntry(v *jsonv.Value) bool {
	if v.Has("tools") {
		return true
	}
	t, _ := v.Get("type").Str()
	return t == "local"
}

func anyServerHas(servers *jsonv.Value, f func(*jsonv.Value) bool) bool {
	if servers.Kind != jsonv.Object {
		return false
	}
	for _, m := range servers.Members {
		if m.Value.Kind == jsonv.Object && f(m.Value) {
			return true
		}
	}
	return false
}

// hasProjectServers reports whether doc is shaped like Claude Code's user
// file: "projects" keyed by folder, one of them with "mcpServers".
func hasProjectServers(doc *jsonv.Value) bool {
	p := doc.Get("projects")
	if p == nil || p.Kind != jsonv.Object {
		return false
	}
	for _, m := range p.Members {
		if m.Value.Kind == jsonv.Object && m.Value.Has("mcpServers") {
			return true
		}
	}
	return false
}

// dialect is how a form departs from the common server entry.
type dialect struct {
	// localType is a "type" that means stdio ("local" for Copilot).
	localType string
	// serverURL: "serverUrl" names the url (Windsurf).
	serverURL bool
	// copilotRefs: env and header values name COPILOT_MCP_ variables bare.
	copilotRefs bool
	// entry, when set, rewrites an entry into the common shape and says
	// whether the server is disabled.
	entry func(*jsonv.Value) (*jsonv.Value, bool, error)
	// tools, when set, reads the entry's allowlist into s.
	tools func(s *Server, v *jsonv.Value) error
}

// dialectOf is the dialect of a form, for the file name.
func dialectOf(f Form, name string) dialect {
	switch f {
	case FormCopilot:
		return dialect{localType: "local", copilotRefs: true, tools: copilotTools(name)}
	case FormWindsurf:
		return dialect{serverURL: true}
	case FormZed:
		return dialect{entry: zedEntry}
	}
	return dialect{}
}

// ref rewrites a Copilot secret reference into the ${NAME} every form
// expands: a value that is exactly a COPILOT_MCP_ name, and $COPILOT_MCP_X
// anywhere in a value. Other forms' values are unchanged.
func (d dialect) ref(value string) string {
	if !d.copilotRefs {
		return value
	}
	if isCopilotName(value) {
		return "${" + value + "}"
	}
	var b strings.Builder
	for {
		i := strings.Index(value, "$COPILOT_MCP_")
		if i < 0 {
			b.WriteString(value)
			return b.String()
		}
		end := i + 1
		for end < len(value) && isNameByte(value[end]) {
			end++
		}
		b.WriteString(value[:i])
		b.WriteString("${" + value[i+1:end] + "}")
		value = value[end:]
	}
}

// isCopilotName reports whether s names a variable of the Copilot
// environment.
func isCopilotName(s string) bool {
	return len(s) > len("COPILOT_MCP_") && strings.HasPrefix(s, "COPILOT_MCP_") && IsVariableName(s)
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// copilotTools reads Copilot's "tools", which Copilot requires: without
// it an agent would get no tool, so a config missing it is a mistake.
func copilotTools(file string) func(*Server, *jsonv.Value) error {
	return func(s *Server, v *jsonv.Value) error {
		if !v.Has("tools") {
			return errors.New(`"tools" is missing: Copilot requires the list of tools the agent may call (["*"] for every tool)`)
		}
		tools, err := stringList(v, "tools")
		if err != nil {
			return err
		}
		if tools == nil {
			tools = []string{}
		}
		s.Tools = tools
		s.ToolsFrom = toolsFrom("tools", s.Name, file)
		return nil
	}
}

// toolsFrom says where an allowlist is written.
func toolsFrom(key, server, file string) string {
	if file == "" {
		return fmt.Sprintf("%q of server %s", key, quote(server))
	}
	return fmt.Sprintf("%q of server %s in %s", key, quote(server), file)
}

// zedEntry rewrites a Zed context server into the common shape. Zed has
// written the command two ways: "command": "npx" with "args" and "env"
// beside it, and the older "command": {"path", "args", "env"}. A server
// an extension provides has neither a command nor a url (only its
// "settings"): there is nothing warden can launch.
func zedEntry(v *jsonv.Value) (*jsonv.Value, bool, error) {
	disabled := false
	if e := v.Get("enabled"); e != nil {
		if e.Kind != jsonv.Bool {
			return nil, false, errors.New(`"enabled" is not true or false`)
		}
		disabled = !e.Bool
	}
	cmd := v.Get("command")
	if cmd.IsNull() && v.Get("url").IsNull() {
		src, _ := v.Get("source").Str()
		if src == "extension" || v.Has("settings") {
			return nil, false, errors.New(`the server is provided by a Zed extension (no "command" or "url"): there is nothing warden can launch`)
		}
	}
	if cmd == nil || cmd.Kind != jsonv.Object {
		return v, disabled, nil
	}
	out := &jsonv.Value{Kind: jsonv.Object}
	for _, m := range v.Members {
		switch m.Key {
		case "command", "args", "env":
		default:
			out.Members = append(out.Members, m)
		}
	}
	if cmd.Has("path") {
		out.Members = append(out.Members, jsonv.Member{Key: "command", Value: cmd.Get("path")})
	}
	for _, k := range []string{"args", "env"} {
		if x := cmd.Get(k); x != nil {
			out.Members = append(out.Members, jsonv.Member{Key: k, Value: x})
		}
	}
	if !cmd.Has("path") {
		return nil, false, errors.New(`"command" is an object without a "path"`)
	}
	return out, disabled, nil
}

// claudeUserServers reads Claude Code's user file: the user scope's
// "mcpServers", then each project's, whose ${workspaceFolder} and
// relative cwd are the project's folder. Servers keep their plain names,
// as Claude Code shows them: a name in two scopes with the same launch is
// one server (listed once, first where it appears); with different
// launches the later is refused by name, since one lock cannot pin both.
func claudeUserServers(file string, doc *jsonv.Value, env Env) []Server {
	type scoped struct {
		scope string
		s     Server
	}
	var out []Server
	seen := map[string]scoped{}
	add := func(scope string, servers *jsonv.Value, env Env) {
		if servers.Kind != jsonv.Object {
			out = append(out, Server{Name: scope, LockName: LockFileName(scope), Err: fmt.Errorf(`"mcpServers" of %s is not an object`, scope)})
			return
		}
		for _, m := range servers.Members {
			s := parseServer(m.Key, m.Value, env, dialect{})
			if prev, ok := seen[m.Key]; ok {
				if sameLaunch(prev.s, s) {
					continue
				}
				if s.Err == nil {
					s.Err = fmt.Errorf("server %s is also in %s with a different launch; one lock cannot pin both (rename one)", quote(m.Key), prev.scope)
				}
			} else {
				seen[m.Key] = scoped{scope, s}
			}
			out = append(out, s)
		}
	}
	if user := doc.Get("mcpServers"); user != nil {
		add("the user scope", user, env)
	}
	if p := doc.Get("projects"); p != nil && p.Kind == jsonv.Object {
		for _, m := range p.Members {
			if m.Value.Kind != jsonv.Object || !m.Value.Has("mcpServers") {
				continue
			}
			penv := env
			if filepath.IsAbs(m.Key) {
				penv.Workspace = filepath.Clean(m.Key)
			}
			add("project "+quote(m.Key), m.Value.Get("mcpServers"), penv)
		}
	}
	return out
}

// sameLaunch reports whether two servers launch the same way as written.
func sameLaunch(a, b Server) bool {
	return a.Err == nil && b.Err == nil && a.URL == b.URL && slices.Equal(a.Argv, b.Argv) &&
		slices.Equal(a.Env, b.Env) && slices.Equal(a.Headers, b.Headers) && a.Dir == b.Dir && a.Disabled == b.Disabled
}
