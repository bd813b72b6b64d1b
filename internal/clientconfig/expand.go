package clientconfig

import (
	"fmt"
	"path/filepath"
	"strings"
)

// expander replaces the variables of config values for the launch, and
// records every value it took from the environment: those are what output
// must mask (Server.Secrets).
type expander struct {
	env     Env
	secrets []string
}

// expand replaces every ${...} in s. where names the value in errors, which
// never quote what a variable holds.
func (x *expander) expand(s, where string) (string, error) {
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
func (x *expander) variable(ref, where string) (string, error) {
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
	if !IsVariableName(name) {
		return "", fmt.Errorf("%s: ${%s} is not a variable warden knows (${NAME}, ${NAME:-default}, ${env:NAME}, ${workspaceFolder}, ${userHome})", where, clip(ref))
	}
	if RunnerVariable(name) {
		return "", fmt.Errorf("%s: ${%s} is a variable of the CI runner, which a config may never read (its tokens reach the workflow's credentials)", where, name)
	}
	if x.env.Allowed != nil && !x.env.Allowed[name] {
		from := x.env.AllowedFrom
		if from == "" {
			from = "the variables this config may read"
		}
		return "", fmt.Errorf("%s: ${%s} is not in %s; add it there if the server should get it", where, name, from)
	}
	if v, ok := x.env.Lookup(name); ok {
		x.secrets = append(x.secrets, v)
		return v, nil
	}
	if hasDefault {
		return def, nil
	}
	return "", fmt.Errorf("%s: environment variable %s is not set", where, name)
}

// runnerPrefixes name the variables a CI runner sets for its own use:
// GitHub's (ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN, which
// mints OIDC tokens for cloud credentials, GITHUB_TOKEN, the Action's
// INPUT_GITHUB-TOKEN) and the runner's own settings.
func runnerPrefixes() []string {
	return []string{"ACTIONS_", "GITHUB_", "INPUT_", "RUNNER_"}
}

// RunnerVariable reports whether name is one of the CI runner's own
// variables, which a config's ${...} may never read, whatever else is
// allowed: a pull request edits the config, and these hold the job's
// tokens. The comparison ignores case, so that no spelling slips through
// on a system whose environment is not case-sensitive.
func RunnerVariable(name string) bool {
	upper := strings.ToUpper(name)
	for _, p := range runnerPrefixes() {
		if strings.HasPrefix(upper, p) {
			return true
		}
	}
	return false
}

// IsVariableName reports whether s is a portable environment variable
// name: ASCII letters, digits and '_', not starting with a digit.
func IsVariableName(s string) bool {
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
