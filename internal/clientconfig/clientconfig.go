// Package clientconfig reads the MCP client configurations teams commit
// into the servers warden captures, one lock per server. ReadFile (and
// ParseFile, for bytes) detects the form from the file's name and shape:
//
//   - {"mcpServers": {...}}: Claude Code's .mcp.json, Cursor's
//     .cursor/mcp.json, Claude Desktop;
//   - the same, as the GitHub Copilot coding agent writes it (a file named
//     copilot-mcp.json, mcp-config.json or .github/copilot/mcp.json, or a
//     server with "tools" or type "local"): "tools" is the allowlist
//     (Server.Tools), required, and a value that is exactly a COPILOT_MCP_
//     name, or $COPILOT_MCP_X within one, reads that variable;
//   - the same, as Windsurf writes it (mcp_config.json, or a server with
//     "serverUrl"): "serverUrl" is the url;
//   - VS Code's {"servers": {...}} (.vscode/mcp.json);
//   - Zed's settings.json, whose "context_servers" hold "command" with
//     "args" and "env", the older "command": {"path", "args", "env"}, or a
//     "url"; a server an extension provides has nothing to launch and is
//     refused by name;
//   - Claude Code's user file ~/.claude.json: the user scope's
//     "mcpServers" and each of "projects"' own; a name in two scopes is one
//     server when the launches agree and refused by name when not;
//   - Codex's config.toml: [mcp_servers.NAME] tables (see codexEntry);
//     enabled_tools and disabled_tools are the allowlist.
//
// Any other file is refused in one line that names the forms warden reads.
// JSON files may have comments and trailing commas (JSONC).
//
// Values may refer to the environment as the clients define it: ${VAR} and
// ${VAR:-default} (Claude Code), ${env:VAR} (VS Code, Cursor), plus
// ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome} and
// ${pathSeparator}. A config never reads the CI runner's own variables
// (ACTIONS_*, GITHUB_*, INPUT_*, RUNNER_*: see RunnerVariable), and where
// Env.Allowed is set (the Action always sets it) only the names it lists;
// Copilot's and Codex's references to variables follow the same rules.
// They are expanded only for the launch: the argv and URL
// a lock records are the values as written in the config, so a lock never
// holds what came from the environment and is the same on every machine.
// A server that needs ${input:...} (a prompt no CI can answer) is refused
// by name.
//
// A config written on Windows often launches "cmd /c npx ...". Off
// Windows the inner command is launched instead (Server.LaunchNote says
// so) while Argv keeps the launch as written, so that locks pinned on
// either system agree.
package clientconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/wardenlock/warden/internal/jsonv"
)

// MaxFileBytes bounds a config file: real ones are a few kilobytes.
const MaxFileBytes = 1 << 20

// Form is the shape of a config file.
type Form string

const (
	// FormMCPServers is {"mcpServers": {...}} (Claude Code, Cursor,
	// Claude Desktop).
	FormMCPServers Form = "mcpServers"
	// FormVSCode is VS Code's {"servers": {...}, "inputs": [...]}.
	FormVSCode Form = "servers"
	// FormCopilot is the GitHub Copilot coding agent's repository MCP
	// configuration: {"mcpServers": {...}} whose servers carry "tools".
	FormCopilot Form = "copilot"
	// FormWindsurf is Windsurf's mcp_config.json: {"mcpServers": {...}},
	// remote servers under "serverUrl".
	FormWindsurf Form = "windsurf"
	// FormZed is Zed's settings.json: {"context_servers": {...}}.
	FormZed Form = "zed"
	// FormCodex is Codex's config.toml: [mcp_servers.NAME] tables.
	FormCodex Form = "codex"
	// FormClaudeUser is Claude Code's user file ~/.claude.json: top-level
	// "mcpServers" plus "projects": {path: {"mcpServers": {...}}}.
	FormClaudeUser Form = "claude-user"
)

// Server is one configured server, ready to capture.
type Server struct {
	// Name is the server's key in the config.
	Name string
	// LockName is the file name of its lock: "<name>.warden.lock", with
	// characters unsafe in a file name replaced by "_".
	LockName string
	// Disabled servers are listed so that a run can say it skipped them.
	Disabled bool
	// Err is why the server cannot be captured (an unset variable, an
	// input prompt, a malformed entry); the other fields are then partial.
	Err error

	// Argv and URL are the launch as written in the config (variables
	// unexpanded): what the lock records.
	Argv []string
	URL  string
	// LaunchArgv and LaunchURL are the same with variables expanded: what
	// is launched or connected to.
	LaunchArgv []string
	LaunchURL  string
	// Env holds "NAME=VALUE" entries for a stdio server (expanded).
	Env []string
	// Headers holds "Name: value" entries for an HTTP server (expanded).
	Headers []string
	// Dir is a stdio server's working directory (expanded), or "".
	Dir string
	// Secrets are the values the launch took from the environment, which
	// everything warden prints or writes must mask.
	Secrets []string

	// Tools is the allowlist of tool names the config lets an agent call
	// (Copilot's "tools", Codex's enabled_tools, ...): nil when the config
	// names none; ["*"] means every tool.
	Tools []string
	// ToolsFrom says where the allowlist is written, for reports: e.g.
	// `"tools" of server "github" in .github/mcp.json`.
	ToolsFrom string
	// LaunchNote, when not empty, says how the launch differs from the
	// config as written, for reports: e.g. `runs "npx ..." without
	// "cmd /c" (a Windows launch, on a linux runner)`.
	LaunchNote string
	// DeniedTools are the tools the config keeps from the agent (Codex's
	// disabled_tools): Tools then holds every other tool it allows (["*"]
	// when it names no enabled_tools), and a check of the allowlist skips
	// these.
	DeniedTools []string
}

// Config is a parsed config file.
type Config struct {
	Path string
	Form Form
	// Servers are in the order of the file.
	Servers []Server
}

// Env is how the config reaches the environment: Lookup reads a variable,
// Workspace is the folder ${workspaceFolder} names, Home ${userHome}.
type Env struct {
	Lookup    func(string) (string, bool)
	Workspace string
	Home      string
	// Allowed, when not nil, is every variable the config may read: a
	// ${NAME} of any other name fails its server, naming the variable.
	// AllowedFrom says in that error where the list is kept ("the
	// config-env input").
	Allowed     map[string]bool
	AllowedFrom string
	// GOOS is the system the launch runs on, as runtime.GOOS names it
	// ("" is this one): off Windows, a "cmd /c" launch runs its inner
	// command (see Server.LaunchNote).
	GOOS string
}

// goos is the system the launch runs on.
func (e Env) goos() string {
	if e.GOOS == "" {
		return runtime.GOOS
	}
	return e.GOOS
}

// Variables says how ReadFile reaches the environment: Lookup reads a
// variable; Allowed and AllowedFrom are as in Env.
type Variables struct {
	Lookup      func(string) (string, bool)
	Allowed     map[string]bool
	AllowedFrom string
}

// ReadFile reads the config at path: a regular file of at most
// MaxFileBytes, in a form ParseFile detects from its name and shape. The
// workspace folder is the directory that holds the client's folder
// (.vscode, .cursor, .zed, ...) or, for a file at the top (.mcp.json), the
// file's own directory.
func ReadFile(path string, vars Variables) (*Config, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("read config %s: not a regular file", path)
	}
	if info.Size() > MaxFileBytes {
		return nil, fmt.Errorf("read config %s: larger than %d bytes", path, MaxFileBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("read config %s: larger than %d bytes", path, MaxFileBytes)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	if vars.Lookup == nil {
		vars.Lookup = func(string) (string, bool) { return "", false }
	}
	home, _ := vars.Lookup("HOME")
	env := Env{Lookup: vars.Lookup, Workspace: workspaceOf(abs), Home: home, Allowed: vars.Allowed, AllowedFrom: vars.AllowedFrom}
	cfg, err := ParseFile(path, data, env)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	return cfg, nil
}

// workspaceOf is the workspace folder of a config file.
func workspaceOf(abs string) string {
	dir := filepath.Dir(abs)
	switch filepath.Base(dir) {
	case ".vscode", ".cursor", ".claude", ".zed", ".codex", ".windsurf", ".github", ".copilot":
		return filepath.Dir(dir)
	case "copilot":
		if filepath.Base(filepath.Dir(dir)) == ".github" {
			return filepath.Dir(filepath.Dir(dir))
		}
	}
	return dir
}

// Parse reads the bytes of a JSON config, detecting its form from its
// shape alone (ParseFile also uses the file's name). JSON with comments
// and trailing commas (JSONC) is accepted in every form; duplicate keys,
// a file with two of mcpServers, servers and context_servers, and a
// servers member that is not an object are refused. Problems of one
// server are recorded in its Err, so that the others can still be
// captured.
func Parse(data []byte, env Env) (*Config, error) {
	return parseJSON("", data, env)
}

// parseJSON reads a JSON config named name ("" when unknown).
func parseJSON(name string, data []byte, env Env) (*Config, error) {
	std, err := hujson.Standardize(append([]byte(nil), data...))
	if err != nil {
		return nil, fmt.Errorf("not JSON or JSONC: %w", err)
	}
	doc, err := jsonv.Parse(std, jsonv.Options{MaxDepth: 64})
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if doc.Kind != jsonv.Object {
		return nil, errors.New("the config is not a JSON object")
	}
	form, servers, err := detect(name, doc)
	if err != nil {
		return nil, err
	}
	cfg := &Config{Path: name, Form: form}
	if form == FormClaudeUser {
		cfg.Servers = claudeUserServers(name, doc, env)
		checkLockNames(cfg.Servers)
		return cfg, nil
	}
	if servers.Kind != jsonv.Object {
		return nil, fmt.Errorf("%q is not an object", serversKey(form))
	}
	d := dialectOf(form, name)
	for _, m := range servers.Members {
		cfg.Servers = append(cfg.Servers, parseServer(m.Key, m.Value, env, d))
	}
	checkLockNames(cfg.Servers)
	return cfg, nil
}

// checkLockNames fails every server whose lock file would be that of an
// earlier one.
func checkLockNames(servers []Server) {
	files := map[string]string{}
	for i := range servers {
		s := &servers[i]
		if prev, dup := files[s.LockName]; dup && s.Err == nil {
			s.Err = fmt.Errorf("its lock file %s would be the same as server %s's; rename one", s.LockName, quote(prev))
		}
		if _, seen := files[s.LockName]; !seen {
			files[s.LockName] = s.Name
		}
	}
}

// parseServer reads one server entry in the dialect of its form.
func parseServer(name string, v *jsonv.Value, env Env, d dialect) Server {
	s := Server{Name: name, LockName: LockFileName(name)}
	if v.Kind != jsonv.Object {
		s.Err = errors.New("the entry is not an object")
		return s
	}
	orig := v
	if d.entry != nil {
		norm, disabled, err := d.entry(v)
		if err != nil {
			s.Err = err
			return s
		}
		v, s.Disabled = norm, disabled
	}
	if off := v.Get("disabled"); off != nil {
		if off.Kind != jsonv.Bool {
			s.Err = errors.New(`"disabled" is not true or false`)
			return s
		}
		s.Disabled = s.Disabled || off.Bool
	}
	if d.tools != nil {
		if s.Err = d.tools(&s, orig); s.Err != nil {
			return s
		}
	}
	x := &expander{env: env}
	s.Err = s.fill(v, x, d)
	if s.Err == nil {
		s.Err = s.windowsLaunch(env.goos())
	}
	s.Secrets = x.secrets
	return s
}

// fill reads the launch of a server entry and expands its variables.
func (s *Server) fill(v *jsonv.Value, x *expander, d dialect) error {
	typ, err := optString(v, "type")
	if err != nil {
		return err
	}
	if typ == d.localType && typ != "" {
		typ = "stdio"
	}
	command, err := optString(v, "command")
	if err != nil {
		return err
	}
	url, err := optString(v, "url")
	if err != nil {
		return err
	}
	if d.serverURL {
		su, err := optString(v, "serverUrl")
		if err != nil {
			return err
		}
		if su != "" && url != "" && su != url {
			return errors.New(`the entry has both "serverUrl" and "url", which differ; keep one`)
		}
		if su != "" {
			url = su
		}
	}
	if v.Has("envFile") {
		return errors.New(`"envFile" is not supported (name the variables in "env")`)
	}
	switch typ {
	case "", "stdio", "http", "sse", "streamable-http", "streamableHttp":
	default:
		return fmt.Errorf("type %s is not stdio, http or sse", quote(typ))
	}
	if command != "" && url != "" {
		return errors.New(`the entry has both "command" and "url"`)
	}
	remote := typ == "http" || typ == "sse" || typ == "streamable-http" || typ == "streamableHttp" || (typ == "" && command == "" && url != "")
	if remote {
		if url == "" {
			return errors.New(`an http or sse server needs a "url"`)
		}
		s.URL = url
		if s.LaunchURL, err = x.expand(url, "url"); err != nil {
			return err
		}
		headers, err := stringMap(v, "headers")
		if err != nil {
			return err
		}
		for _, h := range headers {
			value, err := x.expand(d.ref(h[1]), "headers."+h[0])
			if err != nil {
				return err
			}
			if strings.Contains(value, "${") {
				return fmt.Errorf("headers.%s: the value from the environment contains \"${\"", h[0])
			}
			s.Headers = append(s.Headers, h[0]+": "+value)
		}
		if v.Has("env") || v.Has("args") {
			return errors.New(`"env" and "args" apply to stdio servers, not to a url`)
		}
		return nil
	}
	if command == "" {
		return errors.New(`a stdio server needs a "command"`)
	}
	args, err := stringList(v, "args")
	if err != nil {
		return err
	}
	s.Argv = append([]string{command}, args...)
	for i, a := range s.Argv {
		where := "command"
		if i > 0 {
			where = fmt.Sprintf("args[%d]", i-1)
		}
		e, err := x.expand(a, where)
		if err != nil {
			return err
		}
		s.LaunchArgv = append(s.LaunchArgv, e)
	}
	envs, err := stringMap(v, "env")
	if err != nil {
		return err
	}
	for _, kv := range envs {
		if kv[0] == "" || strings.ContainsAny(kv[0], "=\x00") {
			return fmt.Errorf("env: invalid variable name %s", quote(kv[0]))
		}
		value, err := x.expand(d.ref(kv[1]), "env."+kv[0])
		if err != nil {
			return err
		}
		s.Env = append(s.Env, kv[0]+"="+value)
	}
	cwd, err := optString(v, "cwd")
	if err != nil {
		return err
	}
	if cwd != "" {
		if s.Dir, err = x.expand(cwd, "cwd"); err != nil {
			return err
		}
		if !filepath.IsAbs(s.Dir) {
			s.Dir = filepath.Join(x.env.Workspace, s.Dir)
		}
	}
	if v.Has("headers") {
		return errors.New(`"headers" apply to a url, not to a stdio server`)
	}
	return nil
}

// LockFileName is the lock file of a server: "<name>.warden.lock", every
// character other than ASCII letters, digits, '.', '-' and '_' replaced by
// '_', and a leading '.' too, so that no name can climb out of the lock
// directory or hide its lock.
func LockFileName(name string) string {
	var b strings.Builder
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && i > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		b.WriteByte('_')
	}
	return b.String() + ".warden.lock"
}

func optString(v *jsonv.Value, key string) (string, error) {
	x := v.Get(key)
	if x.IsNull() {
		return "", nil
	}
	s, ok := x.Str()
	if !ok {
		return "", fmt.Errorf("%q is not a string", key)
	}
	return s, nil
}

func stringList(v *jsonv.Value, key string) ([]string, error) {
	x := v.Get(key)
	if x.IsNull() {
		return nil, nil
	}
	if x.Kind != jsonv.Array {
		return nil, fmt.Errorf("%q is not an array of strings", key)
	}
	out := make([]string, 0, len(x.Items))
	for i, it := range x.Items {
		s, ok := it.Str()
		if !ok {
			return nil, fmt.Errorf("%s[%d] is not a string", key, i)
		}
		out = append(out, s)
	}
	return out, nil
}

// stringMap reads an object of strings as ordered pairs.
func stringMap(v *jsonv.Value, key string) ([][2]string, error) {
	x := v.Get(key)
	if x.IsNull() {
		return nil, nil
	}
	if x.Kind != jsonv.Object {
		return nil, fmt.Errorf("%q is not an object of strings", key)
	}
	out := make([][2]string, 0, len(x.Members))
	for _, m := range x.Members {
		s, ok := m.Value.Str()
		if !ok {
			return nil, fmt.Errorf("%s.%s is not a string", key, m.Key)
		}
		out = append(out, [2]string{m.Key, s})
	}
	return out, nil
}

// quote renders config text in a message, escaped and capped.
func quote(s string) string {
	const most = 80
	if len(s) > most {
		s = s[:most] + "…"
	}
	return fmt.Sprintf("%q", s)
}
