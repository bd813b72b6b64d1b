package clientconfig

import (
	"fmt"
	"path/filepath"
	"strings"
)

// expander replaces the variables of config values for the launch.
type expander struct {
	env Env
}

// expand replaces every ${...} in s. where names the value in errors, which
// never quote what a variable holds.
func (x expander) expand(s, where string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("%s: unterminated ${", where)
		}
		v, err := x.variable(s[i+2:i+end], where)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		s = s[i+end+1:]
	}
}

// variable resolves the inside of one ${...}.
func (x expander) variable(ref, where string) (string, error) {
	switch ref {
	case "workspaceFolder":
		return x.env.Workspace, nil
	case "workspaceFolderBasename":
		return filepath.Base(x.env.Workspace), nil
	case "userHome":
		if x.env.Home == "" {
			return "", fmt.Errorf("%s: ${userHome} is used but HOME is not set", where)
		}
		return x.env.Home, nil
	case "pathSeparator", "/":
		return string(filepath.Separator), nil
	}
	if id, ok := strings.CutPrefix(ref, "input:"); ok {
		return "", fmt.Errorf("%s: needs ${input:%s}, a value the client prompts for, which CI cannot answer (use ${env:NAME} instead)", where, clip(id))
	}
	name, def, hasDefault := strings.Cut(ref, ":-")
	name = strings.TrimPrefix(name, "env:")
	if !isEnvName(name) {
		return "", fmt.Errorf("%s: ${%s} is not a variable warden knows (${NAME}, ${NAME:-default}, ${env:NAME}, ${workspaceFolder}, ${userHome})", where, clip(ref))
	}
	if v, ok := x.env.Lookup(name); ok {
		return v, nil
	}
	if hasDefault {
		return def, nil
	}
	return "", fmt.Errorf("%s: environment variable %s is not set", where, name)
}

func isEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func clip(s string) string {
	const most = 40
	if len(s) > most {
		return s[:most] + "…"
	}
	return s
}
