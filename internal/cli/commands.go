package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/mask"
	"github.com/wardenlock/warden/internal/ops"
	"github.com/wardenlock/warden/internal/report"
)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// targetFlags are the capture flags pin and check share.
type targetFlags struct {
	url             string
	headers, env    listFlag
	timeout         float64
	startupTimeout  float64
	maxPages        int
	maxItems        int
	maxMessageBytes int64
	protocol        string
	oauth           oauthFlags
}

func (t *targetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.url, "url", "", "capture a streamable HTTP server at `URL` instead of launching a command")
	fs.Var(&t.headers, "header", "extra HTTP header `'Name: value'` (repeatable; a value ${NAME} is read from the environment)")
	fs.Var(&t.env, "env", "pass `NAME` (from warden's environment) or NAME=VALUE to the server (repeatable)")
	fs.Float64Var(&t.timeout, "timeout", 30, "`seconds` for the whole capture")
	fs.Float64Var(&t.startupTimeout, "startup-timeout", capture.DefaultStartupTimeout.Seconds(), "`seconds` a stdio server may take to start (until it reads its input: npx downloading it) on top of --timeout")
	fs.IntVar(&t.maxPages, "max-pages", 256, "fail when a list's cursor chain exceeds `N` pages")
	fs.IntVar(&t.maxItems, "max-items", capture.DefaultMaxItems, "fail when a tools, resources or prompts list has more than `N` items")
	fs.Int64Var(&t.maxMessageBytes, "max-message-bytes", 16<<20, "largest JSON-RPC message accepted, in `bytes`")
	fs.StringVar(&t.protocol, "protocol", "auto", "MCP protocol `era`: auto (probe with server/discover, fall back to initialize), modern (2026-07-28 only) or legacy (initialize only)")
	t.oauth.register(fs)
}

// secretValues are the values the flags hand the server, which output
// must mask: every --env value and every secret part of a --header value
// (mask.EnvValue, mask.HeaderParts).
func (t *targetFlags) secretValues(getenv func(string) string) []string {
	var out []string
	for _, e := range t.env {
		out = append(out, mask.EnvValue(e, getenv))
	}
	for _, h := range t.headers {
		_, value, _ := strings.Cut(h, ":")
		out = append(out, mask.HeaderParts(value, getenv)...)
	}
	return out
}

func (t *targetFlags) target(argv []string) (ops.Target, error) {
	if math.IsNaN(t.timeout) || t.timeout <= 0 || t.timeout > 86400 {
		return ops.Target{}, errors.New("--timeout must be a number of seconds above 0")
	}
	if math.IsNaN(t.startupTimeout) || t.startupTimeout <= 0 || t.startupTimeout > 86400 {
		return ops.Target{}, errors.New("--startup-timeout must be a number of seconds above 0")
	}
	if t.maxPages < 1 {
		return ops.Target{}, errors.New("--max-pages must be at least 1")
	}
	if t.maxItems < 1 {
		return ops.Target{}, errors.New("--max-items must be at least 1")
	}
	if t.maxMessageBytes < 1024 {
		return ops.Target{}, errors.New("--max-message-bytes must be at least 1024")
	}
	protocol, err := capture.ParseProtocol(t.protocol)
	if err != nil {
		return ops.Target{}, fmt.Errorf("--%w", err)
	}
	tg := ops.Target{
		Argv:            argv,
		URL:             t.url,
		Headers:         t.headers,
		Env:             t.env,
		Timeout:         time.Duration(t.timeout * float64(time.Second)),
		StartupTimeout:  time.Duration(t.startupTimeout * float64(time.Second)),
		MaxPages:        t.maxPages,
		MaxItems:        t.maxItems,
		MaxMessageBytes: t.maxMessageBytes,
		Protocol:        protocol,
	}
	return tg, ops.ValidateTarget(tg)
}

// failJSON is fail for a reporting command: with --json the failure is also
// written to stdout as a record of kind "error".
func failJSON(env Env, of outputFlags, msg string) int {
	if of.json {
		_, _ = io.WriteString(env.Stdout, report.ErrorJSONL(msg))
	}
	return fail(env, msg)
}

// progressTo writes a capture's progress lines to stderr, one at a time
// (a config run captures several servers at once).
func progressTo(env Env) func(string) {
	var mu sync.Mutex
	return func(line string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(env.Stderr, "warden: %s\n", line)
	}
}

// outputFlags are the report flags every reporting command shares.
type outputFlags struct {
	json  bool
	sarif string
}

func (o *outputFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.json, "json", false, "print JSON lines instead of text")
	fs.StringVar(&o.sarif, "sarif", "", "also write a SARIF 2.1.0 report to `PATH`")
}

func newFlagSet(env Env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// Messages wait in a buffer: flagsDone sends -h's usage to stdout and
	// an error's to stderr.
	fs.SetOutput(new(bytes.Buffer))
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: warden %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

func runPin(ctx context.Context, env Env, args []string) int {
	fs := newFlagSet(env, "pin", "pin [flags] (-- CMD ARGS... | --url URL | --config FILE | --surface FILE)")
	var tf targetFlags
	var of outputFlags
	var cf configFlags
	var sf surfaceFlags
	tf.register(fs)
	of.register(fs)
	cf.register(fs)
	sf.register(fs)
	lockPath := fs.String("lock", "warden.lock", "lock file `path`")
	approve := fs.Bool("approve", false, "approve the pinned surface (needs --approver)")
	approver := fs.String("approver", env.Getenv("WARDEN_APPROVER"), "approver `ID` recorded with --approve (default $WARDEN_APPROVER)")
	actor := fs.String("actor", env.Getenv("WARDEN_ACTOR"), "who pins, recorded in pin.pinner (default $WARDEN_ACTOR)")
	allowSecret := fs.Bool("allow-secret-in-lock", false, "write the lock even if a value it stores verbatim (argv, names, enum values) looks like a secret")
	noSnapshot := fs.Bool("no-snapshot", false, "write no surface snapshot beside the lock (and remove the old one, which would no longer match)")
	allowSecretSnap := fs.Bool("allow-secret-in-snapshot", false, "write the surface snapshot even if a string in it looks like a secret")
	var acceptErrs listFlag
	fs.Var(&acceptErrs, "accept-list-error", "accept `LIST=CODE` (e.g. resources=-32603): that JSON-RPC error on the list's first page pins an empty section, recorded in the lock (repeatable, one code per list)")
	if err := fs.Parse(args); err != nil {
		return flagsDone(env, fs, err)
	}
	env.Secrets.Add(tf.secretValues(env.Getenv)...)
	accepts, err := ops.ParseAcceptListErrors(acceptErrs)
	if err != nil {
		return failJSON(env, of, "--accept-list-error "+oneLine(err))
	}
	if err := cf.usedWith(fs); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if err := sf.usedWith(fs); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if err := checkSARIFPath(of.sarif); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if cf.given() {
		if *approve && *approver == "" {
			return failJSON(env, of, "--approve needs --approver ID (or WARDEN_APPROVER)")
		}
		return runPinConfig(ctx, env, &cf, &tf, of, ops.PinOptions{Target: ops.Target{AcceptListErrors: accepts},
			Approve: *approve, Approver: *approver, Actor: *actor,
			Environment: env.Getenv("WARDEN_ENV"), AllowSecretInLock: *allowSecret,
			NoSnapshot: *noSnapshot, AllowSecretInSnapshot: *allowSecretSnap})
	}
	target, err := sf.target(&tf, fs.Args())
	target.Reaper = env.Reaper
	target.Progress = progressTo(env)
	if err == nil && sf.path == "" {
		target.Authorizer, err = tf.oauth.authorizer(env, target.URL)
	}
	if err != nil {
		return failJSON(env, of, oneLine(err))
	}
	target.AcceptListErrors = accepts
	if *approve && *approver == "" {
		return failJSON(env, of, "--approve needs --approver ID (or WARDEN_APPROVER)")
	}
	// Read before the pin replaces it: a pin without --approve drops the
	// lock's approval, which the user must hear.
	dropsApproval := !*approve && wasApproved(*lockPath)
	res, err := ops.Pin(ctx, ops.PinOptions{
		Surface:           sf.path,
		Stdin:             env.Stdin,
		Target:            target,
		LockPath:          *lockPath,
		Approve:           *approve,
		Approver:          *approver,
		Version:           env.Version,
		Actor:             *actor,
		Environment:       env.Getenv("WARDEN_ENV"),
		AllowSecretInLock: *allowSecret,
		Handed:            env.Secrets,

		NoSnapshot:            *noSnapshot,
		AllowSecretInSnapshot: *allowSecretSnap,
	})
	if err != nil {
		if sf.path != "" {
			return failJSON(env, of, surfaceError(sf.path, err))
		}
		return failJSON(env, of, oneLine(err)+captureHint(err, target))
	}
	// The lock is written; a signal since then still stops the report.
	if err := ops.Cancelled(ctx); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if err := printPin(env, of, *lockPath, res); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if err := printSnapshot(env, of, res); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if dropsApproval {
		fmt.Fprintf(env.Stderr, "note: %s was approved; this pin is not, so the approval was dropped (pin with --approve --approver ID, or run 'warden approve --lock %s --approver ID' after review)\n",
			sanitize(*lockPath), sanitize(report.ShellQuote(*lockPath)))
	}
	return ExitClean
}

func runCheck(ctx context.Context, env Env, args []string) int {
	fs := newFlagSet(env, "check", "check [flags] (-- CMD ARGS... | --url URL | --config FILE | --surface FILE)")
	var tf targetFlags
	var of outputFlags
	var cf configFlags
	var sf surfaceFlags
	tf.register(fs)
	of.register(fs)
	cf.register(fs)
	sf.register(fs)
	lockPath := fs.String("lock", "warden.lock", "lock file `path`")
	if err := fs.Parse(args); err != nil {
		return flagsDone(env, fs, err)
	}
	env.Secrets.Add(tf.secretValues(env.Getenv)...)
	if err := cf.usedWith(fs); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if err := sf.usedWith(fs); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if err := checkSARIFPath(of.sarif); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if cf.given() {
		return runCheckConfig(ctx, env, &cf, &tf, of)
	}
	if sf.path == "" && fs.NArg() == 0 && tf.url == "" {
		return failJSON(env, of, noServer(*lockPath))
	}
	target, err := sf.target(&tf, fs.Args())
	target.Reaper = env.Reaper
	target.Progress = progressTo(env)
	if err == nil && sf.path == "" {
		target.Authorizer, err = tf.oauth.authorizer(env, target.URL)
	}
	if err != nil {
		return failJSON(env, of, oneLine(err))
	}
	res, err := ops.Check(ctx, ops.CheckOptions{Target: target, LockPath: *lockPath, Version: env.Version, Surface: sf.path, Stdin: env.Stdin})
	if err != nil {
		if sf.path != "" {
			return failJSON(env, of, surfaceError(sf.path, err))
		}
		return failJSON(env, of, oneLine(err)+captureHint(err, target))
	}
	if err := ops.Cancelled(ctx); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if err := printCheck(env, of, *lockPath, sf.path, res); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if len(res.Drift) > 0 {
		return ExitDrift
	}
	return ExitClean
}

func runDiff(ctx context.Context, env Env, args []string) int {
	fs := newFlagSet(env, "diff", "diff [flags] A.lock B.lock")
	var of outputFlags
	of.register(fs)
	exitCode := fs.Bool("exit-code", false, "exit 1 when integrity drift exists")
	locks, err := parseInterspersed(fs, args)
	if err != nil {
		return flagsDone(env, fs, err)
	}
	if len(locks) != 2 {
		return failJSON(env, of, "diff needs exactly two lock files: warden diff A.lock B.lock")
	}
	if err := checkSARIFPath(of.sarif); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	res, err := ops.Diff(ctx, locks[0], locks[1])
	if err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if err := ops.Cancelled(ctx); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if err := printDiff(env, of, locks[0], locks[1], res); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if *exitCode && len(res.Drift) > 0 {
		return ExitDrift
	}
	return ExitClean
}

// runApprove is `warden approve --approver ID [--lock warden.lock]`.
func runApprove(ctx context.Context, env Env, args []string) int {
	fs := newFlagSet(env, "approve", "approve --approver ID [--lock warden.lock] [--note TEXT]")
	lockPath := fs.String("lock", "warden.lock", "lock file `path`")
	approver := fs.String("approver", env.Getenv("WARDEN_APPROVER"), "approver `ID` (default $WARDEN_APPROVER)")
	note := fs.String("note", "", "attestation `note` (at most 1000 characters)")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return flagsDone(env, fs, err)
	}
	if len(rest) > 0 {
		return fail(env, fmt.Sprintf("approve takes no arguments (got %q); use --lock PATH", rest[0]))
	}
	if *approver == "" {
		return fail(env, "approve needs --approver ID (or WARDEN_APPROVER)")
	}
	return rotate(ctx, env, ops.RotateOptions{LockPath: *lockPath, Approver: *approver, Note: *note})
}

// runRotate is the reference's `lock rotate LOCK` with the same flags.
func runRotate(ctx context.Context, env Env, args []string) int {
	fs := newFlagSet(env, "lock rotate", "lock rotate [--approver ID] [--actor ID] [--note TEXT] LOCK")
	approver := fs.String("approver", "", "re-bind the approval to this `ID`")
	actor := fs.String("actor", env.Getenv("WARDEN_ACTOR"), "who rotates (default $WARDEN_ACTOR, else unknown)")
	note := fs.String("note", "", "attestation `note` (at most 1000 characters)")
	locks, err := parseInterspersed(fs, args)
	if err != nil {
		return flagsDone(env, fs, err)
	}
	if len(locks) != 1 {
		return fail(env, "lock rotate needs exactly one lock file")
	}
	return rotate(ctx, env, ops.RotateOptions{LockPath: locks[0], Approver: *approver, Actor: *actor, Note: *note})
}

func rotate(ctx context.Context, env Env, o ops.RotateOptions) int {
	o.Version = env.Version
	o.Environment = env.Getenv("WARDEN_ENV")
	l, err := ops.Rotate(ctx, o)
	if err != nil {
		return fail(env, oneLine(err))
	}
	fmt.Fprintf(env.Stdout, "attested %s\n  overall_digest: %s\n", o.LockPath, l.OverallDigest)
	if o.Approver != "" {
		fmt.Fprintf(env.Stdout, "  approved by: %s\n", sanitize(o.Approver))
	}
	return ExitClean
}
