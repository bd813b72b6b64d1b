package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/wardenlock/warden/internal/clientconfig"
	"github.com/wardenlock/warden/internal/explain"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/ops"
	"github.com/wardenlock/warden/internal/report"
)

// configFlags select a client config's servers for pin and check.
type configFlags struct {
	paths   listFlag
	servers listFlag
	lockDir string
	jobs    int
	// allowEnv, when given, is every variable the config may read.
	allowEnv listFlag
}

func (c *configFlags) register(fs *flag.FlagSet) {
	fs.Var(&c.paths, "config", "capture every server of an MCP client config `FILE` (.mcp.json, .vscode/mcp.json, ...), one lock each (repeatable: a server named in several configs shares one lock; needs --lock-dir)")
	fs.Var(&c.servers, "server", "with --config: only the server `NAME` (repeatable)")
	fs.StringVar(&c.lockDir, "lock-dir", "", "with --config: `DIR` of the <server>.warden.lock files (default: beside the config; required with several)")
	fs.IntVar(&c.jobs, "jobs", ops.DefaultJobs, "with --config: capture up to `N` servers at once")
	fs.Var(&c.allowEnv, "config-env", "with --config: the config may read the variable `NAME` (repeatable; once given, or under GitHub Actions, no other; the runner's ACTIONS_*, GITHUB_*, INPUT_*, RUNNER_* never)")
}

// given reports whether --config was given.
func (c *configFlags) given() bool { return len(c.paths) > 0 }

// usedWith refuses the single-server flags next to --config, and the config
// flags without it.
func (c *configFlags) usedWith(fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !c.given() {
		for _, n := range []string{"server", "lock-dir", "jobs", "config-env"} {
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
	for n := range set {
		if strings.HasPrefix(n, "oauth-") {
			return fmt.Errorf("--%s does not apply with --config: OAuth is per server; pin or check an OAuth server with --url", n)
		}
	}
	if fs.NArg() > 0 {
		return errors.New("a server command does not apply with --config")
	}
	if c.jobs < 1 {
		return errors.New("--jobs must be at least 1")
	}
	// Beside each config, a server two configs name would have two locks.
	if len(c.paths) > 1 && c.lockDir == "" {
		return errors.New("several --config need --lock-dir DIR: a server named in several configs keeps one lock there")
	}
	seen := map[string]bool{}
	for _, p := range c.paths {
		if p == "" {
			return errors.New("--config needs a file")
		}
		key := filepath.Clean(p)
		if seen[key] {
			return fmt.Errorf("--config %s is given twice", p)
		}
		seen[key] = true
	}
	return nil
}

// options reads the config and builds the run's options.
func (c *configFlags) options(env Env, tf *targetFlags) (ops.ConfigOptions, error) {
	vars := clientconfig.Variables{Lookup: lookupEnv(env)}
	// In a workflow the config may come from the pull request under test:
	// as in the Action, it reads only the variables listed, none by default.
	if len(c.allowEnv) > 0 || env.Getenv("GITHUB_ACTIONS") == "true" {
		vars.Allowed, vars.AllowedFrom = map[string]bool{}, "--config-env"
		for _, n := range c.allowEnv {
			if clientconfig.RunnerVariable(n) {
				return ops.ConfigOptions{}, fmt.Errorf("--config-env %q: a variable of the CI runner, which a config may never read", n)
			}
			vars.Allowed[n] = true
		}
	}
	var configs []*clientconfig.Config
	for _, p := range c.paths {
		cfg, err := clientconfig.ReadFile(p, vars)
		if err != nil {
			return ops.ConfigOptions{}, err
		}
		for _, s := range cfg.Servers {
			env.Secrets.Add(s.Secrets...)
		}
		configs = append(configs, cfg)
	}
	// The base target carries the shared bounds; its launch is a
	// placeholder that each server replaces.
	base, err := tf.target([]string{"config"})
	if err != nil {
		return ops.ConfigOptions{}, err
	}
	base.Argv = nil
	base.Reaper = env.Reaper
	base.Progress = progressTo(env)
	return ops.ConfigOptions{Configs: configs, Servers: c.servers, LockDir: c.lockDir, Jobs: c.jobs, Base: base, Version: env.Version}, nil
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

// runPinConfig pins every selected server of a config into its own lock.
func runPinConfig(ctx context.Context, env Env, cf *configFlags, tf *targetFlags, of outputFlags, pin ops.PinOptions) int {
	o, err := cf.options(env, tf)
	if err != nil {
		return failJSON(env, of, oneLine(err))
	}
	o.Approve, o.Approver, o.Actor, o.Environment, o.AllowSecretInLock = pin.Approve, pin.Approver, pin.Actor, pin.Environment, pin.AllowSecretInLock
	o.Handed = env.Secrets
	o.NoSnapshot, o.AllowSecretInSnapshot = pin.NoSnapshot, pin.AllowSecretInSnapshot
	// Accepted for every server the run pins; each lock records only the
	// errors its own server answered.
	o.Base.AcceptListErrors = pin.Target.AcceptListErrors
	runs, err := ops.PinConfig(ctx, o)
	if err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if err := ops.Cancelled(ctx); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	return reportConfig(env, of, "pin", runs)
}

// runCheckConfig checks every selected server of a config against its lock.
func runCheckConfig(ctx context.Context, env Env, cf *configFlags, tf *targetFlags, of outputFlags) int {
	o, err := cf.options(env, tf)
	if err != nil {
		return failJSON(env, of, oneLine(err))
	}
	runs, err := ops.CheckConfig(ctx, o)
	if err != nil {
		return failJSON(env, of, oneLine(err))
	}
	if err := ops.Cancelled(ctx); err != nil {
		return failJSON(env, of, oneLine(err))
	}
	code := reportConfig(env, of, "check", runs)
	if code == ExitDrift && !of.json {
		if err := writeConfigNextSteps(env, cf, runs); err != nil {
			return failJSON(env, of, oneLine(err))
		}
	}
	return code
}

// writeConfigNextSteps follows a config check's drift report with the
// re-pin of each drifted server, by name, approving where its lock was
// approved.
func writeConfigNextSteps(env Env, cf *configFlags, runs []ops.ServerRun) error {
	base := "warden pin"
	for _, p := range cf.paths {
		base += " --config " + report.ShellQuote(p)
	}
	if cf.lockDir != "" {
		base += " --lock-dir " + report.ShellQuote(cf.lockDir)
	}
	var cmds, notes []string
	for _, r := range runs {
		if r.Check == nil || len(r.Check.Drift) == 0 {
			continue
		}
		cmd := base + " --server " + report.ShellQuote(r.Name)
		if r.Check.Baseline != nil && r.Check.Baseline.Pin.Approved {
			cmd += " --approve --approver <you>"
			notes = append(notes, r.Name+"'s lock was approved: a re-pin without --approve drops the approval")
		}
		cmds = append(cmds, cmd)
	}
	if len(cmds) == 0 {
		return nil
	}
	return report.WriteStepsText(env.Stdout, cmds, append([]string{"warden diff OLD.lock NEW.lock compares two locks offline, with the server's words from their snapshots"}, notes...))
}

// reportConfig writes the run's report — text with every line prefixed by
// its server, or JSON lines with a "server" key, and SARIF with a run per
// server — and returns the worst exit code over the servers.
func reportConfig(env Env, of outputFlags, mode string, runs []ops.ServerRun) int {
	reports := ops.ServerReports(mode, runs, nil, func(lockPath string) report.SARIFOptions { return sarifOptions(env, lockPath) })
	explainReports(reports, runs)
	if of.sarif != "" {
		var buf bytes.Buffer
		if err := report.WriteServerSARIF(&buf, reports); err != nil {
			return fail(env, oneLine(err))
		}
		if err := lock.WriteAtomic(of.sarif, env.Secrets.Bytes(buf.Bytes())); err != nil {
			return fail(env, oneLine(err))
		}
	}
	var err error
	if of.json {
		err = report.WriteServerJSONL(env.Stdout, reports)
		if err == nil && mode == "check" {
			_, err = io.WriteString(env.Stdout, report.ServerVerdictJSONL(reports))
		}
	} else {
		err = report.WriteServerText(env.Stdout, reports)
	}
	if err != nil {
		return fail(env, oneLine(err))
	}
	switch report.CountServers(reports).Verdict() {
	case report.VerdictError:
		return ExitError
	case report.VerdictDrift:
		return ExitDrift
	}
	return ExitClean
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

// explainReports gives each checked server's report the words behind its
// drift items. reports are ops.ServerReports(…, runs, …): one per run, in
// order.
func explainReports(reports []report.ServerReport, runs []ops.ServerRun) {
	for i, run := range runs {
		if i < len(reports) && run.Check != nil && len(run.Check.Drift) > 0 {
			reports[i].Explanations = explain.Items(run.Check.Drift, run.Check.BaselineSurface, run.Check.CurrentSurface)
		}
	}
}
