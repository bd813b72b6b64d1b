package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/clientconfig"
	"github.com/wardenlock/warden/internal/ops"
	"github.com/wardenlock/warden/internal/report"
)

// Input defaults, as documented in action.yml.
const (
	DefaultLock     = "warden.lock"
	DefaultSARIF    = "warden.sarif"
	DefaultTimeout  = 30 * time.Second
	DefaultMaxPages = 256
	// maxTimeout and maxMaxPages bound the numeric inputs so a typo cannot
	// keep a runner busy for hours.
	maxTimeout  = time.Hour
	maxMaxPages = 100000
	maxMaxItems = 1000000
)

// Modes of the Action.
const (
	ModeCheck = "check"
	ModePin   = "pin"
)

// shellMetacharacters are refused in a plain server-cmd. warden never runs a
// shell, so these could only be a mistake (quoting, pipes and redirections
// would be passed to the server as literal arguments) or an injection
// attempt through a workflow expression; the reference action refuses the
// same set.
const shellMetacharacters = ";|&$`\\<>(){}'\""

// Inputs are the Action's parsed and validated inputs.
type Inputs struct {
	Mode string
	// Argv is the stdio launch; URL the HTTP endpoint; Config a client
	// config whose servers are all captured (Servers selects some).
	// Exactly one of Argv, URL and Config is set.
	Argv    []string
	URL     string
	Config  string
	Servers []string
	// Configs are the config input's paths, one a line: several are read
	// as one run (a server named in several shares its lock), with their
	// locks in LockDir, which several need.
	Configs []string
	LockDir string
	// ConfigEnv lists the only environment variables the config's ${...}
	// may read (the config-env input); nil reads none.
	ConfigEnv []string
	// Headers are "Name: value" lines, Env "NAME" or "NAME=VALUE" lines.
	Headers []string
	Env     []string
	// Lock and SARIF are as given, relative to WorkDir unless absolute.
	Lock    string
	SARIF   string
	Timeout time.Duration
	// StartupTimeout is a stdio server's start-up budget on top of Timeout.
	StartupTimeout time.Duration
	MaxPages       int
	// MaxItems bounds the items of each list (capture.Options.MaxItems).
	MaxItems int
	// Protocol is the MCP protocol era to speak (capture.ProtocolAuto
	// unless the protocol input says otherwise).
	Protocol capture.Protocol
	// WorkDirInput is the working-directory input as given.
	WorkDirInput string
	Approver     string
	// AllowSecretInLock lets pin write a lock that stores a secret-looking
	// value verbatim (see ops.StoredSecretError).
	AllowSecretInLock bool
	// Snapshot writes the surface snapshot beside the lock a pin writes
	// and beside the candidate lock of a check (true unless the snapshot
	// input is false). A check verifies the snapshot beside its lock
	// whatever this says.
	Snapshot bool
	// AllowSecretInSnapshot lets pin write a snapshot in which the secret
	// screen finds a secret (see snapshot.SecretError).
	AllowSecretInSnapshot bool
	// Comment keeps warden's comment on the pull request up to date
	// (check mode); GitHubToken is the token it uses. CandidateLock is
	// where a check writes the captured lock on drift, as given (empty:
	// CandidatePath of the lock). See parseReviewInputs.
	Comment       bool
	GitHubToken   string
	CandidateLock string
	// Surface is a surface file to pin or check instead of a server, as
	// given (relative to WorkDirInput unless absolute); nothing is launched.
	Surface string
	// OAuth are the oauth-* inputs: the grant for a server-url server.
	OAuth OAuthInputs
	// AcceptListErrors are the list errors a pin accepts as empty sections
	// (the accept-list-error input; capture.Options.AcceptListErrors); nil
	// accepts none. A check accepts what its lock records instead.
	AcceptListErrors map[string]int64
	// Consensus are the against-community inputs; nil without them.
	Consensus *ConsensusInputs
	// Sigstore are the signing and verification inputs (see sign.go).
	Sigstore SigstoreInputs
}

// ParseInputs reads every input through get (which returns an input's raw
// value by its action.yml name) and validates it. It returns the first
// problem as an error that names the input.
func ParseInputs(get func(name string) string) (Inputs, error) {
	in := Inputs{
		Lock:         orDefault(get("lock"), DefaultLock),
		SARIF:        orDefault(get("sarif"), DefaultSARIF),
		WorkDirInput: orDefault(get("working-directory"), "."),
		Approver:     strings.TrimSpace(get("approver")),
	}

	mode := strings.ToLower(strings.TrimSpace(get("mode")))
	switch mode {
	case "", ModeCheck:
		in.Mode = ModeCheck
	case ModePin:
		in.Mode = ModePin
	default:
		return in, fmt.Errorf("input mode: %q is not one of check, pin", mode)
	}
	if in.Approver != "" && in.Mode != ModePin {
		return in, errors.New("input approver: only used with mode: pin (a check never approves anything)")
	}
	if err := noControl("approver", in.Approver); err != nil {
		return in, err
	}
	switch v := strings.ToLower(strings.TrimSpace(get("allow-secret-in-lock"))); v {
	case "", "false":
	case "true":
		if in.Mode != ModePin {
			return in, errors.New("input allow-secret-in-lock: only used with mode: pin")
		}
		in.AllowSecretInLock = true
	default:
		return in, fmt.Errorf("input allow-secret-in-lock: %q is not true or false", v)
	}
	switch v := strings.ToLower(strings.TrimSpace(get("snapshot"))); v {
	case "", "true":
		in.Snapshot = true
	case "false":
	default:
		return in, fmt.Errorf("input snapshot: %q is not true or false", v)
	}
	switch v := strings.ToLower(strings.TrimSpace(get("allow-secret-in-snapshot"))); v {
	case "", "false":
	case "true":
		if in.Mode != ModePin {
			return in, errors.New("input allow-secret-in-snapshot: only used with mode: pin")
		}
		in.AllowSecretInSnapshot = true
	default:
		return in, fmt.Errorf("input allow-secret-in-snapshot: %q is not true or false", v)
	}

	cmd, url := strings.TrimSpace(get("server-cmd")), strings.TrimSpace(get("server-url"))
	in.Config = strings.TrimSpace(get("config"))
	in.Surface = strings.TrimSpace(get("surface"))
	switch {
	case in.Surface != "" && (cmd != "" || url != "" || in.Config != ""):
		return in, errors.New("inputs surface, server-cmd, server-url and config: give exactly one (surface pins or checks a surface file and launches nothing)")
	case in.Surface != "":
		if err := noControl("surface", in.Surface); err != nil {
			return in, err
		}
	case in.Config != "" && (cmd != "" || url != ""):
		return in, errors.New("inputs config, server-cmd and server-url: give exactly one (config captures every server of a client config)")
	case cmd != "" && url != "":
		return in, errors.New("inputs server-cmd and server-url: give exactly one, not both")
	case in.Config != "":
		configs, err := parseConfigs(in.Config)
		if err != nil {
			return in, err
		}
		in.Configs = configs
	case cmd == "" && url == "":
		return in, errors.New("inputs server-cmd and server-url: give exactly one (a command to launch, or the URL of a running server), or config, or surface")
	case cmd != "":
		argv, err := ParseServerCmd(cmd)
		if err != nil {
			return in, err
		}
		in.Argv = argv
	default:
		u, err := parseServerURL(url)
		if err != nil {
			return in, err
		}
		in.URL = u
	}

	var err error
	for _, line := range strings.Split(get("servers"), "\n") {
		if name := strings.TrimSpace(line); name != "" {
			in.Servers = append(in.Servers, name)
		}
	}
	if len(in.Servers) > 0 && in.Config == "" {
		return in, errors.New("input servers: only used with config")
	}
	if in.ConfigEnv, err = parseConfigEnv(get("config-env")); err != nil {
		return in, err
	}
	if len(in.ConfigEnv) > 0 && in.Config == "" {
		return in, errors.New("input config-env: only used with config")
	}
	if in.LockDir, err = parseLockDir(strings.TrimSpace(get("lock-dir")), in.Configs); err != nil {
		return in, err
	}
	if in.Headers, err = ParseHeaders(get("headers")); err != nil {
		return in, err
	}
	if in.Config != "" && (len(in.Headers) > 0 || strings.TrimSpace(get("env")) != "") {
		return in, errors.New("inputs headers and env: not used with config (the config says how to reach each server)")
	}
	if len(in.Headers) > 0 && in.URL == "" {
		return in, errors.New("input headers: only used with server-url")
	}
	if in.OAuth, err = parseOAuthInputs(get, in.URL); err != nil {
		return in, err
	}
	if in.Env, err = ParseEnv(get("env")); err != nil {
		return in, err
	}
	if len(in.Env) > 0 && in.URL != "" {
		return in, errors.New("input env: only used with server-cmd (a server reached by URL is not started by warden)")
	}
	if in.Surface != "" && len(in.Env) > 0 {
		return in, errors.New("input env: not used with surface (a surface file launches nothing)")
	}
	if in.Timeout, err = parseTimeout(get("timeout")); err != nil {
		return in, err
	}
	if in.StartupTimeout, err = parseSeconds("startup-timeout", get("startup-timeout"), capture.DefaultStartupTimeout); err != nil {
		return in, err
	}
	if in.MaxPages, err = parseMaxPages(get("max-pages")); err != nil {
		return in, err
	}
	if in.MaxItems, err = parseCount("max-items", get("max-items"), capture.DefaultMaxItems, maxMaxItems); err != nil {
		return in, err
	}
	if in.Protocol, err = capture.ParseProtocol(strings.ToLower(strings.TrimSpace(get("protocol")))); err != nil {
		return in, fmt.Errorf("input %w", err)
	}
	for _, f := range [][2]string{{"lock", in.Lock}, {"sarif", in.SARIF}, {"working-directory", in.WorkDirInput}} {
		if err := noControl(f[0], f[1]); err != nil {
			return in, err
		}
	}
	if err := parseReviewInputs(get, &in); err != nil {
		return in, err
	}
	if in.AcceptListErrors, err = parseAcceptListErrors(get("accept-list-error"), in); err != nil {
		return in, err
	}
	// Consensus first: coordinate and trusted-root serve both.
	if err := parseConsensusInputs(get, &in); err != nil {
		return in, err
	}
	if err := parseSigstoreInputs(get, &in); err != nil {
		return in, err
	}
	return in, nil
}

// parseAcceptListErrors reads the accept-list-error input: LIST=CODE
// entries, one per line or separated by commas (see
// ops.ParseAcceptListErrors), for a pin that captures.
func parseAcceptListErrors(raw string, in Inputs) (map[string]int64, error) {
	var specs []string
	for _, spec := range strings.FieldsFunc(raw, func(r rune) bool { return r == '\n' || r == '\r' || r == ',' }) {
		if spec = strings.TrimSpace(spec); spec != "" {
			specs = append(specs, spec)
		}
	}
	if len(specs) == 0 {
		return nil, nil
	}
	switch {
	case in.Mode != ModePin:
		return nil, errors.New("input accept-list-error: only used with mode: pin (a check accepts exactly what its lock recorded at pin)")
	case in.Surface != "":
		return nil, errors.New("input accept-list-error: not used with surface (a surface file holds no list errors to accept)")
	}
	accepts, err := ops.ParseAcceptListErrors(specs)
	if err != nil {
		return nil, fmt.Errorf("input accept-list-error: %w", err)
	}
	return accepts, nil
}

// orDefault trims v and falls back to def when it is empty.
func orDefault(v, def string) string {
	if v = strings.TrimSpace(v); v == "" {
		return def
	}
	return v
}

// noControl refuses control characters (newlines included) in a
// single-line input.
func noControl(name, v string) error {
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("input %s: contains a control character (%q)", name, r)
		}
	}
	return nil
}

// ParseServerCmd turns the server-cmd input into an argv. Two forms are
// accepted:
//
//   - a plain command line, split on spaces and tabs, in which shell
//     metacharacters and control characters (newlines included) are refused;
//   - a JSON array of strings, for arguments that contain spaces or
//     characters the plain form refuses: ["node", "server.js", "--name", "my server"].
//
// Neither form is ever given to a shell.
func ParseServerCmd(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		var argv []string
		if err := json.Unmarshal([]byte(s), &argv); err != nil {
			return nil, fmt.Errorf("input server-cmd: starts with '[' but is not a JSON array of strings: %w", err)
		}
		if len(argv) == 0 || argv[0] == "" {
			return nil, errors.New("input server-cmd: the JSON array must start with a non-empty command")
		}
		for i, a := range argv {
			if strings.ContainsRune(a, 0) {
				return nil, fmt.Errorf("input server-cmd: element %d contains a NUL character", i)
			}
		}
		return argv, nil
	}
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r':
			return nil, errors.New("input server-cmd: contains a newline; give one command (use a JSON array for arguments with special characters)")
		case strings.ContainsRune(shellMetacharacters, r):
			return nil, fmt.Errorf("input server-cmd: contains the shell metacharacter %q; warden runs the server without a shell, so quotes, pipes, redirections and variables cannot work — write arguments with spaces or special characters as a JSON array, e.g. [\"node\", \"server.js\", \"--name\", \"my server\"]", r)
		case r < 0x20 && r != '\t', r == 0x7f:
			return nil, fmt.Errorf("input server-cmd: contains a control character (%q)", r)
		}
	}
	argv := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' })
	if len(argv) == 0 {
		return nil, errors.New("input server-cmd: is empty")
	}
	return argv, nil
}

// parseServerURL accepts an absolute http or https URL.
func parseServerURL(s string) (string, error) {
	if err := noControl("server-url", s); err != nil {
		return "", err
	}
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return "", fmt.Errorf("input server-url: %q is not an http:// or https:// URL", s)
	}
	if strings.ContainsAny(s, " \t") {
		return "", errors.New("input server-url: contains whitespace")
	}
	return s, nil
}

// ParseHeaders parses the headers input: one "Name: value" per line; blank
// lines are skipped. Names must be HTTP tokens. A value written ${NAME} is
// resolved by warden from its environment, so secrets can come from the
// step's env: instead of appearing in the input.
func ParseHeaders(s string) ([]string, error) {
	var out []string
	for i, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" {
			return nil, fmt.Errorf("input headers: line %d is not 'Name: value'", i+1)
		}
		if !isToken(name) {
			return nil, fmt.Errorf("input headers: line %d: %q is not a valid header name", i+1, name)
		}
		for _, r := range value {
			if (r < 0x20 && r != '\t') || r == 0x7f {
				return nil, fmt.Errorf("input headers: line %d: the value of %s contains a control character", i+1, name)
			}
		}
		out = append(out, name+": "+value)
	}
	return out, nil
}

// isToken reports whether s is an RFC 9110 token (a valid header name).
func isToken(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return false
		}
	}
	return s != ""
}

// ParseEnv parses the env input: one NAME=VALUE (set the variable for the
// server) or NAME (copy the variable from the step's environment) per line;
// blank lines are skipped. Everything else is withheld from the server.
func ParseEnv(s string) ([]string, error) {
	var out []string
	for i, line := range strings.Split(s, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, value, hasValue := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !capture.IsEnvName(name) {
			return nil, fmt.Errorf("input env: line %d: %q is not a valid variable name (letters, digits and _, not starting with a digit)", i+1, name)
		}
		if strings.ContainsRune(value, 0) {
			return nil, fmt.Errorf("input env: line %d: the value of %s contains a NUL character", i+1, name)
		}
		if hasValue {
			out = append(out, name+"="+value)
		} else {
			out = append(out, name)
		}
	}
	return out, nil
}

// parseTimeout reads the timeout input in seconds (fractions allowed).
func parseTimeout(s string) (time.Duration, error) {
	return parseSeconds("timeout", s, DefaultTimeout)
}

// parseSeconds reads the input name in seconds (fractions allowed), def
// when it is empty.
func parseSeconds(name, s string, def time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return def, nil
	}
	secs, err := strconv.ParseFloat(s, 64)
	if err != nil || secs <= 0 || secs != secs {
		return 0, fmt.Errorf("input %s: %q is not a positive number of seconds", name, s)
	}
	d := time.Duration(secs * float64(time.Second))
	if d > maxTimeout || secs > maxTimeout.Seconds() {
		return 0, fmt.Errorf("input %s: %s seconds is more than the %d allowed", name, s, int(maxTimeout.Seconds()))
	}
	return d, nil
}

// parseMaxPages reads the max-pages input.
func parseMaxPages(s string) (int, error) {
	return parseCount("max-pages", s, DefaultMaxPages, maxMaxPages)
}

// parseCount reads a whole-number input from 1 to most, def when empty.
func parseCount(name, s string, def, most int) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > most {
		return 0, fmt.Errorf("input %s: %q is not a whole number from 1 to %d", name, s, most)
	}
	return n, nil
}

// ResolveWorkDir returns the absolute working directory named by dir
// (relative to workspace unless absolute). It refuses a directory outside
// the workspace, before and after resolving symbolic links, so a workflow
// input cannot point warden at the runner's other files, and a directory
// that does not exist.
func ResolveWorkDir(workspace, dir string) (string, error) {
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return "", fmt.Errorf("resolve workspace %q: %w", workspace, err)
	}
	p := dir
	if !filepath.IsAbs(p) {
		p = filepath.Join(ws, p)
	}
	p = filepath.Clean(p)
	if !within(ws, p) {
		return "", fmt.Errorf("input working-directory: %q is outside the workspace", dir)
	}
	realWS, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return "", fmt.Errorf("resolve workspace %q: %w", ws, err)
	}
	realP, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("input working-directory: %q: %w", dir, err)
	}
	if !within(realWS, realP) {
		return "", fmt.Errorf("input working-directory: %q leads outside the workspace through a symbolic link", dir)
	}
	info, err := os.Stat(realP)
	if err != nil {
		return "", fmt.Errorf("input working-directory: %w", err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("input working-directory: %q is not a directory", dir)
	}
	return p, nil
}

// ResolveFile returns the absolute path of a file input (the lock or the
// SARIF report) given as p, relative to dir (the resolved working
// directory) unless absolute. Like ResolveWorkDir it refuses a path outside
// the workspace, as written and after resolving symbolic links, so that a
// file or directory committed as a link cannot make warden read or write
// outside the workspace. The file, and directories below the workspace,
// need not exist yet (a first pin, a new report directory): the part of the
// path that exists is resolved and the rest cannot hold links. A dangling
// link is refused, since where it would lead cannot be checked. name is the
// input's name, for the error.
func ResolveFile(workspace, dir, name, p string) (string, error) {
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return "", fmt.Errorf("resolve workspace %q: %w", workspace, err)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, abs)
	}
	abs = filepath.Clean(abs)
	if !within(ws, abs) {
		return "", fmt.Errorf("input %s: %q is outside the workspace", name, p)
	}
	realWS, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return "", fmt.Errorf("resolve workspace %q: %w", ws, err)
	}
	real, err := resolveExisting(abs)
	if err != nil {
		return "", fmt.Errorf("input %s: %q: %w", name, p, err)
	}
	if !within(realWS, real) {
		return "", fmt.Errorf("input %s: %q leads outside the workspace through a symbolic link", name, p)
	}
	return abs, nil
}

// resolveExisting resolves the symbolic links in the longest part of the
// absolute path p that exists and appends the rest unchanged. It fails on a
// dangling link anywhere in p.
func resolveExisting(p string) (string, error) {
	rest := ""
	for cur := p; ; {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		// cur does not resolve: either it is missing (go up a level) or it
		// is a link to something missing.
		if info, lerr := os.Lstat(cur); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a symbolic link to a missing file", cur)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", err
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within reports whether path p is root or below it (both absolute, clean).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// parseConfigs reads the config input: one path a line, blank lines
// ignored, none twice.
func parseConfigs(raw string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(raw, "\n") {
		p := strings.TrimSpace(line)
		if p == "" {
			continue
		}
		if err := noControl("config", p); err != nil {
			return nil, err
		}
		if seen[filepath.Clean(p)] {
			return nil, fmt.Errorf("input config: %q is given twice", p)
		}
		seen[filepath.Clean(p)] = true
		out = append(out, p)
	}
	return out, nil
}

// parseLockDir reads the lock-dir input, which goes with config and which
// several configs need: beside each config, a server two configs name
// would have two locks.
func parseLockDir(dir string, configs []string) (string, error) {
	switch {
	case dir == "" && len(configs) > 1:
		return "", errors.New("input lock-dir: needed with several configs (a server named in several keeps one lock there)")
	case dir == "":
		return "", nil
	case len(configs) == 0:
		return "", errors.New("input lock-dir: only used with config")
	}
	if err := noControl("lock-dir", dir); err != nil {
		return "", err
	}
	return dir, nil
}

// parseConfigEnv reads the config-env input: one variable name per line
// (commas and spaces separate names too). The runner's own variables are
// refused here, by name, as the config reader would refuse them: listing
// one cannot make it readable.
func parseConfigEnv(raw string) ([]string, error) {
	var names []string
	for _, name := range strings.FieldsFunc(raw, func(r rune) bool { return r == '\n' || r == '\r' || r == ',' || r == ' ' || r == '\t' }) {
		if !clientconfig.IsVariableName(name) {
			return nil, fmt.Errorf("input config-env: %q is not a variable name", report.Clip(name, 40))
		}
		if clientconfig.RunnerVariable(name) {
			return nil, fmt.Errorf("input config-env: %s is a variable of the runner, which a config may never read", name)
		}
		names = append(names, name)
	}
	return names, nil
}
