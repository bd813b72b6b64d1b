package clientconfig

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/wardenlock/warden/internal/jsonv"
)

// maxTOMLDepth bounds how deeply a config.toml nests arrays and inline
// tables: the TOML parser recurses, and real configs nest two or three
// levels.
const maxTOMLDepth = 32

// parseCodex reads Codex's config.toml: one [mcp_servers.NAME] table per
// server, in the order of the file. Each table becomes the common entry
// (see codexEntry) and is read as every other form is.
func parseCodex(name string, data []byte, env Env) (*Config, error) {
	if err := checkTOMLDepth(data); err != nil {
		return nil, err
	}
	var doc map[string]any
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return nil, fmt.Errorf("not valid TOML: %s", firstLine(err.Error()))
	}
	raw, ok := doc["mcp_servers"]
	if !ok {
		return nil, fmt.Errorf("no [mcp_servers] tables; %s", formsRead)
	}
	order := keyOrder(md)
	servers, ok := raw.(map[string]any)
	if !ok {
		return nil, errors.New(`"mcp_servers" is not a table`)
	}
	cfg := &Config{Path: name, Form: FormCodex}
	for _, key := range orderedKeys(servers, []string{"mcp_servers"}, order) {
		v := tomlValue(servers[key], []string{"mcp_servers", key}, order)
		cfg.Servers = append(cfg.Servers, parseServer(key, v, env, dialect{entry: codexEntry, tools: codexTools(name)}))
	}
	checkLockNames(cfg.Servers)
	return cfg, nil
}

// codexEntry rewrites a Codex server table into the common entry: "cwd",
// "command", "args", "env" and "url" as they are; "env_vars" (variables
// passed through) as env entries NAME=${NAME}; "http_headers" as headers;
// "env_http_headers" (header to variable) and "bearer_token_env_var" (an
// Authorization: Bearer header) as headers reading ${NAME}, so that they
// follow the rules of every variable. enabled = false disables the
// server. Timeouts, "required", approval modes and OAuth settings do not
// change what is captured and are ignored.
func codexEntry(v *jsonv.Value) (*jsonv.Value, bool, error) {
	disabled := false
	if e := v.Get("enabled"); e != nil {
		if e.Kind != jsonv.Bool {
			return nil, false, errors.New(`"enabled" is not true or false`)
		}
		disabled = !e.Bool
	}
	if v.Has("bearer_token") {
		return nil, false, errors.New(`"bearer_token" is not supported (name the variable in "bearer_token_env_var")`)
	}
	out := &jsonv.Value{Kind: jsonv.Object}
	for _, k := range []string{"command", "args", "cwd", "url"} {
		if x := v.Get(k); x != nil {
			out.Members = append(out.Members, jsonv.Member{Key: k, Value: x})
		}
	}
	env, err := codexEnv(v)
	if err != nil {
		return nil, false, err
	}
	if env != nil {
		out.Members = append(out.Members, jsonv.Member{Key: "env", Value: env})
	}
	headers, err := codexHeaders(v)
	if err != nil {
		return nil, false, err
	}
	if headers != nil {
		out.Members = append(out.Members, jsonv.Member{Key: "headers", Value: headers})
	}
	return out, disabled, nil
}

// codexEnv is the env of a Codex server: "env" then "env_vars".
func codexEnv(v *jsonv.Value) (*jsonv.Value, error) {
	env := v.Get("env")
	if env != nil && env.Kind != jsonv.Object {
		return nil, errors.New(`"env" is not a table of strings`)
	}
	names, err := stringList(v, "env_vars")
	if err != nil {
		return nil, err
	}
	if env == nil && names == nil {
		return nil, nil
	}
	out := &jsonv.Value{Kind: jsonv.Object}
	if env != nil {
		out.Members = append(out.Members, env.Members...)
	}
	for _, n := range names {
		if !IsVariableName(n) {
			return nil, fmt.Errorf("env_vars: %s is not a variable name", quote(n))
		}
		out.Members = append(out.Members, jsonv.Member{Key: n, Value: str("${" + n + "}")})
	}
	return out, nil
}

// codexHeaders is the headers of a Codex server.
func codexHeaders(v *jsonv.Value) (*jsonv.Value, error) {
	out := &jsonv.Value{Kind: jsonv.Object}
	static, err := stringMap(v, "http_headers")
	if err != nil {
		return nil, err
	}
	for _, h := range static {
		out.Members = append(out.Members, jsonv.Member{Key: h[0], Value: str(h[1])})
	}
	fromEnv, err := stringMap(v, "env_http_headers")
	if err != nil {
		return nil, err
	}
	for _, h := range fromEnv {
		if !IsVariableName(h[1]) {
			return nil, fmt.Errorf("env_http_headers.%s: %s is not a variable name", h[0], quote(h[1]))
		}
		out.Members = append(out.Members, jsonv.Member{Key: h[0], Value: str("${" + h[1] + "}")})
	}
	bearer, err := optString(v, "bearer_token_env_var")
	if err != nil {
		return nil, err
	}
	if bearer != "" {
		if !IsVariableName(bearer) {
			return nil, fmt.Errorf("bearer_token_env_var: %s is not a variable name", quote(bearer))
		}
		out.Members = append(out.Members, jsonv.Member{Key: "Authorization", Value: str("Bearer ${" + bearer + "}")})
	}
	if len(out.Members) == 0 {
		return nil, nil
	}
	return out, nil
}

// codexTools reads enabled_tools and disabled_tools. Codex offers the
// enabled tools (every tool when there is no list) less the disabled
// ones; Tools holds that and DeniedTools the disabled list, so that "*"
// with exceptions stays expressible.
func codexTools(file string) func(*Server, *jsonv.Value) error {
	return func(s *Server, v *jsonv.Value) error {
		enabled, err := stringList(v, "enabled_tools")
		if err != nil {
			return err
		}
		denied, err := stringList(v, "disabled_tools")
		if err != nil {
			return err
		}
		switch {
		case enabled != nil:
			s.Tools = []string{}
			for _, t := range enabled {
				if !containsString(denied, t) {
					s.Tools = append(s.Tools, t)
				}
			}
			s.ToolsFrom = toolsFrom("enabled_tools", s.Name, file)
		case denied != nil:
			s.Tools = []string{"*"}
			s.ToolsFrom = toolsFrom("disabled_tools", s.Name, file)
		default:
			return nil
		}
		if denied != nil {
			s.DeniedTools = denied
		}
		return nil
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func str(s string) *jsonv.Value { return &jsonv.Value{Kind: jsonv.String, Text: s} }

// keyOrder maps every key of a decoded TOML document, joined by NUL, to
// its place in the file.
func keyOrder(md toml.MetaData) map[string]int {
	keys := md.Keys()
	order := make(map[string]int, len(keys))
	for i, k := range keys {
		j := strings.Join(k, "\x00")
		if _, ok := order[j]; !ok {
			order[j] = i
		}
	}
	return order
}

// orderedKeys are the keys of table m at path, in the order of the file
// (any the metadata lacks last, sorted).
func orderedKeys(m map[string]any, path []string, order map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	prefix := strings.Join(path, "\x00") + "\x00"
	place := func(k string) int {
		if i, ok := order[prefix+k]; ok {
			return i
		}
		return math.MaxInt
	}
	sort.Slice(keys, func(i, j int) bool {
		pi, pj := place(keys[i]), place(keys[j])
		if pi != pj {
			return pi < pj
		}
		return keys[i] < keys[j]
	})
	return keys
}

// tomlValue converts a decoded TOML value at path into a JSON value,
// tables keeping the order of the file. A date or time becomes a number
// holding its text, so that a key wanting a string says it is not one.
func tomlValue(x any, path []string, order map[string]int) *jsonv.Value {
	switch t := x.(type) {
	case string:
		return str(t)
	case bool:
		return &jsonv.Value{Kind: jsonv.Bool, Bool: t}
	case int64:
		return &jsonv.Value{Kind: jsonv.Int, Text: strconv.FormatInt(t, 10)}
	case float64:
		return &jsonv.Value{Kind: jsonv.Float, Text: strconv.FormatFloat(t, 'g', -1, 64)}
	case time.Time:
		return &jsonv.Value{Kind: jsonv.Float, Text: t.String()}
	case []any:
		out := &jsonv.Value{Kind: jsonv.Array}
		for _, it := range t {
			out.Items = append(out.Items, tomlValue(it, path, order))
		}
		return out
	case []map[string]any:
		out := &jsonv.Value{Kind: jsonv.Array}
		for _, it := range t {
			out.Items = append(out.Items, tomlValue(it, path, order))
		}
		return out
	case map[string]any:
		out := &jsonv.Value{Kind: jsonv.Object}
		for _, k := range orderedKeys(t, path, order) {
			sub := append(append([]string(nil), path...), k)
			out.Members = append(out.Members, jsonv.Member{Key: k, Value: tomlValue(t[k], sub, order)})
		}
		return out
	}
	return &jsonv.Value{Kind: jsonv.Float, Text: fmt.Sprint(x)}
}

// checkTOMLDepth refuses TOML that nests arrays or inline tables more
// than maxTOMLDepth deep, skipping strings and comments. Table headers
// ([a], [[a]]) open at most two levels.
func checkTOMLDepth(data []byte) error {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case '"', '\'':
			i = skipTOMLString(data, i)
		case '[', '{':
			depth++
			if depth > maxTOMLDepth {
				return fmt.Errorf("TOML nested more than %d levels deep", maxTOMLDepth)
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// skipTOMLString returns the index of the last byte of the string that
// opens at data[i] (or the end of the data).
func skipTOMLString(data []byte, i int) int {
	q := data[i]
	if i+2 < len(data) && data[i+1] == q && data[i+2] == q {
		end := bytes.Index(data[i+3:], []byte{q, q, q})
		if end < 0 {
			return len(data)
		}
		return i + 3 + end + 2
	}
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			if q == '"' {
				j++
			}
		case q, '\n':
			return j
		}
	}
	return len(data)
}

// firstLine keeps the first line of a parser's message, so that an error
// stays one line.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
