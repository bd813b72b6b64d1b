package action

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wardenlock/warden/internal/clientconfig"
	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/explain"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/ops"
	"github.com/wardenlock/warden/internal/report"
)

// runConfig pins or checks every selected server of the config input's
// configs, each against its own <name>.warden.lock in lock-dir or beside its
// config (a server named in several configs shares one), and reports the run
// as one: annotations on each lock's lines, one SARIF file with a run per
// server (none when a server failed), a job summary with a row per server,
// and the worst exit code.
func (r *runner) runConfig(ctx context.Context, base ops.Target) int {
	configs, lockDir, err := r.readConfigs()
	if err != nil {
		return r.fail(err)
	}
	for _, cfg := range configs {
		startIn(cfg, r.workDir)
	}
	base.Argv, base.URL, base.Dir = nil, "", ""
	o := ops.ConfigOptions{Configs: configs, LockDir: lockDir, Servers: r.in.Servers, Base: base, Version: r.version, Handed: r.secrets}
	mode := r.in.Mode
	resume, err := r.quiet()
	if err != nil {
		return r.fail(err)
	}
	var runs []ops.ServerRun
	if mode == ModePin {
		o.Approve, o.Approver = r.in.Approver != "", r.in.Approver
		o.Actor = r.getenv("WARDEN_ACTOR")
		if o.Actor == "" {
			o.Actor = r.getenv("GITHUB_ACTOR")
		}
		o.Environment = r.getenv("WARDEN_ENV")
		if o.Environment == "" {
			o.Environment = "github-actions"
		}
		o.AllowSecretInLock = r.in.AllowSecretInLock
		o.NoSnapshot, o.AllowSecretInSnapshot = !r.in.Snapshot, r.in.AllowSecretInSnapshot
		runs, err = ops.PinConfig(ctx, o)
	} else {
		runs, err = ops.CheckConfig(ctx, o)
	}
	resume()
	if err != nil {
		return r.fail(err)
	}
	if err := ops.Cancelled(ctx); err != nil {
		return r.fail(err)
	}

	lines := map[string]*report.LineIndex{}
	reports := ops.ServerReports(mode, runs, r.display, func(lockPath string) report.SARIFOptions {
		idx := r.indexLockAt(lockPath)
		lines[lockPath] = idx
		return report.SARIFOptions{Version: r.version, ArtifactURI: report.ArtifactURI(lockPath, r.workspace), Lines: idx}
	})
	// A server refused for its configs' disagreement names them: as the
	// workflow does, relative to the workspace.
	for i := range reports {
		reports[i].Error = r.relative(reports[i].Error)
	}
	// The words behind each server's drift, for the log and the summary
	// only: SARIF and annotations stay hash-level. reports are one per run,
	// in order.
	for i, run := range runs {
		if i < len(reports) && run.Check != nil && len(run.Check.Drift) > 0 {
			reports[i].Explanations = explain.Items(run.Check.Drift, run.Check.BaselineSurface, run.Check.CurrentSurface)
		}
	}
	counts := report.CountServers(reports)
	// A server that failed has no run in the SARIF file, and an upload
	// without a category's run closes that category's open alerts: with
	// any failure no SARIF is written at all, as for one failed server.
	sarifPath := ""
	if counts.Failed == 0 {
		if err := r.writeServerSARIF(reports); err != nil {
			return r.fail(err)
		}
		sarifPath = r.display(r.sarifAbs)
	}
	if err := r.annotateFailures(runs); err != nil {
		return r.fail(err)
	}
	for _, run := range runs {
		if run.Skipped || run.Err != nil {
			continue
		}
		// As for one server: findings already approved in a lock are not
		// raised again on the job page; SARIF carries them all.
		var findings []lock.Finding
		var items []drift.Item
		if run.Check != nil {
			findings, items = run.Check.NewFindings, run.Check.Drift
		} else if run.Pin != nil {
			findings = run.Pin.Findings
		}
		if err := report.WriteAnnotations(r.log, findings, items, report.AnnotationOptions{
			File: r.display(run.LockPath), Lines: lines[run.LockPath], SARIFPath: sarifPath,
		}); err != nil {
			return r.fail(err)
		}
	}
	if err := r.quietly(func(w io.Writer) error { return report.WriteServerText(w, reports) }); err != nil {
		return r.fail(err)
	}
	code := ExitClean
	switch counts.Verdict() {
	case report.VerdictError:
		code = ExitError
	case report.VerdictDrift:
		code = ExitDrift
	}
	if err := ops.Cancelled(ctx); err != nil {
		return r.fail(err)
	}
	if path := r.getenv("GITHUB_STEP_SUMMARY"); path != "" {
		md := report.RenderServerSummary(mode, reports, sarifPath)
		if counts.Failed > 0 {
			md += "\nNo SARIF file was written: a server failed, and an upload without its run would close its open alerts.\n"
		}
		if err := r.appendMasked(path, func(w io.Writer) error { _, err := io.WriteString(w, md); return err }); err != nil {
			return r.fail(err)
		}
	}
	if err := r.writeOutputs([]Output{
		{"exit-code", strconv.Itoa(code)},
		{"verdict", counts.Verdict()},
		{"drift-count", configDriftCount(reports, counts)},
		// One digest cannot stand for several locks.
		{"overall-digest", ""},
		{"sarif", sarifPath},
	}); err != nil {
		return r.fail(err)
	}
	return code
}

// readConfigs reads the config input's configs and resolves the lock-dir
// input, refusing any config or lock outside the workspace.
func (r *runner) readConfigs() ([]*clientconfig.Config, string, error) {
	lockDir := ""
	if r.in.LockDir != "" {
		abs, err := ResolveFile(r.workspace, r.workDir, "lock-dir", r.in.LockDir)
		if err != nil {
			return nil, "", err
		}
		lockDir = abs
	}
	// A pull request edits the config: its ${...} read only the variables
	// the workflow lists in config-env, never the runner's own.
	allowed := map[string]bool{}
	for _, n := range r.in.ConfigEnv {
		allowed[n] = true
	}
	vars := clientconfig.Variables{
		Lookup: func(name string) (string, bool) {
			v := r.getenv(name)
			return v, v != ""
		},
		Allowed:     allowed,
		AllowedFrom: "the config-env input",
	}
	paths := r.in.Configs
	if len(paths) == 0 {
		paths = []string{r.in.Config}
	}
	var configs []*clientconfig.Config
	for _, p := range paths {
		configAbs, err := ResolveFile(r.workspace, r.workDir, "config", p)
		if err != nil {
			return nil, "", err
		}
		cfg, err := clientconfig.ReadFile(configAbs, vars)
		if err != nil {
			return nil, "", err
		}
		// Reports show the config as the workflow names it.
		for i := range cfg.Servers {
			s := &cfg.Servers[i]
			s.ToolsFrom = strings.ReplaceAll(s.ToolsFrom, configAbs, r.display(configAbs))
		}
		for _, s := range cfg.Servers {
			if err := r.addSecrets(s.Secrets...); err != nil {
				return nil, "", err
			}
		}
		// Every lock is a file the pull request controls: none may lead
		// outside the workspace.
		dir := lockDir
		if dir == "" {
			dir = filepath.Dir(configAbs)
		}
		for _, s := range cfg.Servers {
			if _, err := ResolveFile(r.workspace, r.workDir, "config", filepath.Join(dir, s.LockName)); err != nil {
				return nil, "", fmt.Errorf("server %s: %w", s.Name, err)
			}
		}
		configs = append(configs, cfg)
	}
	return configs, lockDir, nil
}

// indexLockAt locates entries in a lock's text for annotations and SARIF,
// read as boundedly as the lock reader reads; nil if it cannot be read.
func (r *runner) indexLockAt(path string) *report.LineIndex {
	text, err := lock.ReadBytes(path)
	if err != nil {
		return nil
	}
	return report.IndexLock(text)
}

// writeServerSARIF writes the run's SARIF file: a run per server.
func (r *runner) writeServerSARIF(reports []report.ServerReport) error {
	var buf bytes.Buffer
	if err := report.WriteServerSARIF(&buf, reports); err != nil {
		return err
	}
	return r.writeSARIFBytes(buf.Bytes())
}

// writeSARIFBytes writes the SARIF file atomically, inside the workspace,
// never through a symlink.
func (r *runner) writeSARIFBytes(data []byte) error {
	if _, err := ResolveFile(r.workspace, r.workDir, "sarif", r.sarifAbs); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(r.sarifAbs), 0o755); err != nil {
		return fmt.Errorf("create SARIF directory: %w", err)
	}
	if err := lock.WriteAtomic(r.sarifAbs, r.secrets.Bytes(data)); err != nil {
		return fmt.Errorf("write SARIF: %w", err)
	}
	return nil
}

// startIn sets where each stdio server without a cwd starts: dir, the
// working-directory input, where server-cmd starts too and where `cd
// working-directory && warden check --config …` would start it. A cwd the
// config gives is already resolved, against the config's workspace folder
// as the clients resolve it (clientconfig). A relative command (./bin/server)
// is then found from the directory the server starts in.
func startIn(cfg *clientconfig.Config, dir string) {
	for i := range cfg.Servers {
		if s := &cfg.Servers[i]; s.URL == "" && s.Dir == "" {
			s.Dir = dir
		}
	}
}

// configDriftCount is the drift-count output of a config run: the drift
// items of every server. When a server failed, its drift is unknown: the
// count is then that of the servers that completed if they drifted, and
// empty otherwise, so that "0" always means that every selected server was
// checked and none drifted.
func configDriftCount(reports []report.ServerReport, counts report.ServerCounts) string {
	n := 0
	for _, s := range reports {
		n += len(s.Drift)
	}
	if counts.Failed > 0 && n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// annotateFailures raises an error annotation for each server that
// failed, saying which and why in one line: the same error text a single
// server's failure is annotated with. GitHub shows AnnotationLimit errors
// a step; past them, one notice says how many more there are.
func (r *runner) annotateFailures(runs []ops.ServerRun) error {
	shown, more := 0, 0
	for _, run := range runs {
		if run.Skipped || run.Err == nil {
			continue
		}
		if shown == report.AnnotationLimit {
			more++
			continue
		}
		shown++
		text := r.relative(run.Err.Error())
		// Errors about the config entry itself already say which server.
		text, _ = strings.CutPrefix(text, "server "+run.Name+": ")
		msg := report.Message("server " + run.Name + ": " + text)
		if err := r.log.Command("error", []report.Property{{Key: "title", Value: "warden"}}, msg); err != nil {
			return err
		}
	}
	if more > 0 {
		msg := fmt.Sprintf("%d more server(s) failed; the job summary lists every server", more)
		return r.log.Command("notice", []report.Property{{Key: "title", Value: "warden"}}, msg)
	}
	return nil
}
