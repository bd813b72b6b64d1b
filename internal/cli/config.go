package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/wardenlock/warden/internal/clientconfig"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/ops"
	"github.com/wardenlock/warden/internal/report"
)

// configFlags select a client config's servers for pin and check.
type configFlags struct {
	path    string
	servers listFlag
	lockDir string
	jobs    int
}

func (c *configFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.path, "config", "", "capture every server of an MCP client config `FILE` (.mcp.json, .vscode/mcp.json, ...), one lock each")
	fs.Var(&c.servers, "server", "with --config: only the server `NAME` (repeatable)")
	fs.StringVar(&c.lockDir, "lock-dir", "", "with --config: `DIR` of the <server>.warden.lock files (default: beside the config)")
	fs.IntVar(&c.jobs, "jobs", ops.DefaultJobs, "with --config: capture up to `N` servers at once")
}

// usedWith refuses the single-server flags next to --config, and the config
// flags without it.
func (c *configFlags) usedWith(fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if c.path == "" {
		for _, n := range []string{"server", "lock-dir", "jobs"} {
			if set[n] {
				return fmt.Errorf("--%s needs --config", n)
			}
		}
		return nil
	}
	for _, n := range []string{"url", "lock", "header", "env"} {
		if set[n] {
			return fmt.Errorf("--%s does not apply with --config (the config says how to reach each server)", n)
		}
	}
	if fs.NArg() > 0 {
		return errors.New("a server command does not apply with --config")
	}
	if c.jobs < 1 {
		return errors.New("--jobs must be at least 1")
	}
	return nil
}

// options reads the config and builds the run's options.
func (c *configFlags) options(env Env, tf *targetFlags) (ops.ConfigOptions, error) {
	cfg, err := clientconfig.ReadFile(c.path, lookupEnv(env))
	if err != nil {
		return ops.ConfigOptions{}, err
	}
	// The base target carries the shared bounds; its launch is a
	// placeholder that each server replaces.
	base, err := tf.target([]string{"config"})
	if err != nil {
		return ops.ConfigOptions{}, err
	}
	base.Argv = nil
	base.Reaper = env.Reaper
	return ops.ConfigOptions{Config: cfg, Servers: c.servers, LockDir: c.lockDir, Jobs: c.jobs, Base: base, Version: env.Version}, nil
}

// lookupEnv reads the environment the way the config's variables do. Env
// only has Getenv, so an empty value counts as unset, as in the shell's
// ${VAR:-default}.
func lookupEnv(env Env) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v := env.Getenv(name)
		return v, v != ""
	}
}

// tally counts the outcomes of a config run for its last line and exit code.
type tally struct{ clean, drift, failed, skipped int }

func (t tally) exitCode() int {
	switch {
	case t.failed > 0:
		return ExitError
	case t.drift > 0:
		return ExitDrift
	}
	return ExitClean
}

// runPinConfig pins every selected server of a config into its own lock.
func runPinConfig(ctx context.Context, env Env, cf *configFlags, tf *targetFlags, of outputFlags, pin ops.PinOptions) int {
	o, err := cf.options(env, tf)
	if err != nil {
		return fail(env, oneLine(err))
	}
	o.Approve, o.Approver, o.Actor, o.Environment, o.AllowSecretInLock = pin.Approve, pin.Approver, pin.Actor, pin.Environment, pin.AllowSecretInLock
	runs, err := ops.PinConfig(ctx, o)
	if err != nil {
		return fail(env, oneLine(err))
	}
	if err := ops.Cancelled(ctx); err != nil {
		return fail(env, oneLine(err))
	}
	return reportConfig(env, of, runs, func(w *bytes.Buffer, run ops.ServerRun) error {
		return report.WritePinText(w, run.LockPath, run.Pin.Lock, run.Pin.Findings)
	})
}

// runCheckConfig checks every selected server of a config against its lock.
func runCheckConfig(ctx context.Context, env Env, cf *configFlags, tf *targetFlags, of outputFlags) int {
	o, err := cf.options(env, tf)
	if err != nil {
		return fail(env, oneLine(err))
	}
	runs, err := ops.CheckConfig(ctx, o)
	if err != nil {
		return fail(env, oneLine(err))
	}
	if err := ops.Cancelled(ctx); err != nil {
		return fail(env, oneLine(err))
	}
	return reportConfig(env, of, runs, func(w *bytes.Buffer, run ops.ServerRun) error {
		return report.WriteCheckText(w, run.LockPath, run.Check.Drift)
	})
}

// reportConfig writes the run's report — text with every line prefixed by
// its server, or JSON lines with a "server" key, and SARIF with a run per
// server — and returns the worst exit code over the servers.
func reportConfig(env Env, of outputFlags, runs []ops.ServerRun, text func(*bytes.Buffer, ops.ServerRun) error) int {
	var t tally
	reports := make([]report.ServerReport, 0, len(runs))
	for _, run := range runs {
		r := report.ServerReport{Name: run.Name, Skipped: run.Skipped}
		switch {
		case run.Skipped:
			t.skipped++
		case run.Err != nil:
			t.failed++
			r.Error = oneLine(run.Err)
		case run.Check != nil:
			r.Findings, r.Drift = run.Check.Findings, run.Check.Drift
			if len(run.Check.Drift) > 0 {
				t.drift++
			} else {
				t.clean++
			}
		case run.Pin != nil:
			r.Findings = run.Pin.Findings
			t.clean++
		}
		r.SARIF = sarifOptions(env, run.LockPath)
		reports = append(reports, r)
	}
	if of.sarif != "" {
		var buf bytes.Buffer
		if err := report.WriteServerSARIF(&buf, reports); err != nil {
			return fail(env, oneLine(err))
		}
		if err := lock.WriteAtomic(of.sarif, buf.Bytes()); err != nil {
			return fail(env, oneLine(err))
		}
	}
	if of.json {
		if err := report.WriteServerJSONL(env.Stdout, reports); err != nil {
			return fail(env, oneLine(err))
		}
		return t.exitCode()
	}
	out := bufio.NewWriter(env.Stdout)
	for i, run := range runs {
		prefix := "[" + sanitize(run.Name) + "] "
		switch {
		case run.Skipped:
			fmt.Fprintf(out, "%sskipped: disabled in the config\n", prefix)
		case run.Err != nil:
			fmt.Fprintf(out, "%serror: %s\n", prefix, sanitize(reports[i].Error))
		default:
			var buf bytes.Buffer
			if err := text(&buf, run); err != nil {
				return fail(env, oneLine(err))
			}
			for _, line := range strings.SplitAfter(buf.String(), "\n") {
				if line != "" {
					out.WriteString(prefix + line)
				}
			}
		}
	}
	fmt.Fprintf(out, "%d server(s): %d clean, %d drift, %d error, %d skipped\n", len(runs), t.clean, t.drift, t.failed, t.skipped)
	if err := out.Flush(); err != nil {
		return fail(env, oneLine(err))
	}
	return t.exitCode()
}

// sarifOptions locates one lock's results: its URI relative to the
// repository root and its entries' lines.
func sarifOptions(env Env, lockPath string) report.SARIFOptions {
	root := env.Getenv("GITHUB_WORKSPACE")
	if root == "" {
		root = workDir(env)
	}
	o := report.SARIFOptions{Version: env.Version, ArtifactURI: report.ArtifactURI(lockPath, root)}
	if text, err := lock.ReadBytes(lockPath); err == nil {
		o.Lines = report.IndexLock(text)
	}
	return o
}
