package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/wardenlock/warden/internal/action"
	"github.com/wardenlock/warden/internal/consensus"
	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/explain"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/ops"
	"github.com/wardenlock/warden/internal/report"
)

// sanitize makes a value that quotes input safe to print on a terminal:
// clipped to report.MaxMessageBytes, then TerminalSafe.
func sanitize(s string) string { return report.Message(s) }

// writeSARIF writes a SARIF report atomically, pointing results at the lock
// relative to the repository root ($GITHUB_WORKSPACE, else the working
// directory) and at the entries' lines in the lock text. When there are more
// results than code scanning accepts in a run, the report keeps the most
// severe and a note on stderr says how many were left out. launch, when
// set, is shown beside the server-identity result; accepted are the lists
// accepted as errors (run properties and notifications, not results).
func writeSARIF(env Env, path, lockPath string, findings []lock.Finding, items []drift.Item, launch *report.LaunchChange, accepted []report.AcceptedList, cons *consensus.Result) error {
	var buf bytes.Buffer
	opts := sarifOptions(env, lockPath)
	opts.Launch = launch
	opts.Accepted = accepted
	opts.Consensus = cons
	if err := report.WriteSARIF(&buf, findings, items, opts); err != nil {
		return err
	}
	if err := lock.WriteAtomic(path, env.Secrets.Bytes(buf.Bytes())); err != nil {
		return err
	}
	if n := len(findings) + len(items); n > report.SARIFResultLimit {
		fmt.Fprintf(env.Stderr, "note: %s holds the %d most severe of %d results (code scanning accepts at most %d per run); %d left out\n",
			sanitize(path), report.SARIFResultLimit, n, report.SARIFResultLimit, n-report.SARIFResultLimit)
	}
	return nil
}

func printPin(env Env, of outputFlags, lockPath string, res *ops.PinResult) error {
	accepted := report.AcceptedFromLock(res.Lock, true)
	if of.sarif != "" {
		if err := writeSARIF(env, of.sarif, lockPath, res.Findings, nil, nil, accepted, nil); err != nil {
			return err
		}
	}
	if of.json {
		return report.WriteJSONLWith(env.Stdout, res.Findings, nil, report.JSONLOptions{Accepted: accepted})
	}
	return report.WritePinText(env.Stdout, lockPath, res.Lock, res.Findings)
}

// printCheck writes a check's report. surfacePath is the --surface file
// checked, "" after a capture. With --json the last record is the
// verdict; in text, drift is followed by the next steps.
func printCheck(env Env, of outputFlags, lockPath, surfacePath string, res *ops.CheckResult) error {
	// A changed launch is shown argv by argv beside the server-identity item.
	launch := report.NewLaunchChange(res.Drift, res.Baseline, res.Current)
	if of.sarif != "" {
		if err := writeSARIF(env, of.sarif, lockPath, res.Findings, res.Drift, launch, res.Accepted, res.Consensus); err != nil {
			return err
		}
	}
	// The words behind each item: from the snapshot beside the lock and
	// the surface just checked (the current side alone without a snapshot).
	expls := explain.Items(res.Drift, res.BaselineSurface, res.CurrentSurface)
	if of.json {
		if err := report.WriteJSONLWith(env.Stdout, res.Findings, res.Drift, report.JSONLOptions{Launch: launch, Explanations: expls, Accepted: res.Accepted}); err != nil {
			return err
		}
		if res.Consensus != nil {
			if _, err := io.WriteString(env.Stdout, report.ConsensusJSONL(res.Consensus)); err != nil {
				return err
			}
		}
		verdict := report.VerdictClean
		if len(res.Drift) > 0 {
			verdict = report.VerdictDrift
		}
		_, err := io.WriteString(env.Stdout, report.VerdictJSONL(verdict, len(res.Drift), lockPath))
		return err
	}
	if err := report.WriteCheckTextExplained(env.Stdout, lockPath, res.Drift, expls); err != nil {
		return err
	}
	if err := report.WriteAcceptedText(env.Stdout, res.Accepted); err != nil {
		return err
	}
	if err := report.WriteLaunchText(env.Stdout, launch); err != nil {
		return err
	}
	if n := len(res.NewFindings); n > 0 {
		fmt.Fprintf(env.Stdout, "note: %d static finding(s) not approved in the lock (informational: findings never change the exit code; see --json or --sarif)\n", n)
	}
	if err := report.WriteConsensusText(env.Stdout, res.Consensus); err != nil {
		return err
	}
	if len(res.Drift) == 0 {
		return nil
	}
	return report.WriteNextStepsText(env.Stdout, nextSteps(lockPath, surfacePath, res))
}

// nextSteps are the re-pin commands for a drifted check: from the surface
// file checked, else the launch just checked (the lock's own when the
// capture's lock has none).
func nextSteps(lockPath, surfacePath string, res *ops.CheckResult) report.NextSteps {
	n := report.NextSteps{Lock: lockPath}
	if res.Baseline != nil {
		n.Approved = res.Baseline.Pin.Approved
	}
	switch {
	case surfacePath != "":
		n.Source = "--surface " + report.ShellQuote(surfacePath)
	case res.Current != nil && report.LaunchArgs(res.Current.Server) != "":
		n.Source = report.LaunchArgs(res.Current.Server)
	case res.Baseline != nil:
		n.Source = report.LaunchArgs(res.Baseline.Server)
	}
	return n
}

// printDiff writes the offline comparison: a table ordered by severity,
// class and target, with the words behind each item where the snapshots
// beside the locks have them, or "no differences (...)".
func printDiff(env Env, of outputFlags, a, b string, res *ops.DiffResult) error {
	launch := report.NewLaunchChange(res.Drift, res.A, res.B)
	if of.sarif != "" {
		if err := writeSARIF(env, of.sarif, b, nil, res.Drift, launch, nil, nil); err != nil {
			return err
		}
	}
	expls := explain.Items(res.Drift, res.ASurface, res.BSurface)
	if of.json {
		return report.WriteJSONLWith(env.Stdout, nil, res.Drift, report.JSONLOptions{Launch: launch, Explanations: expls})
	}
	if err := report.WriteDiffText(env.Stdout, filepath.Base(a), filepath.Base(b), res.Drift, expls); err != nil {
		return err
	}
	if err := report.WriteLockAcceptedText(env.Stdout, filepath.Base(a), res.A); err != nil {
		return err
	}
	if err := report.WriteLockAcceptedText(env.Stdout, filepath.Base(b), res.B); err != nil {
		return err
	}
	if len(res.Drift) == 0 {
		return nil
	}
	return report.WriteLaunchText(env.Stdout, launch)
}

// runAction is the GitHub Action entrypoint (action.yml: args ["action"]).
func runAction(ctx context.Context, env Env, args []string) int {
	if len(args) > 0 {
		return fail(env, "action takes its inputs from INPUT_* variables, not arguments")
	}
	return action.Run(ctx, env.Getenv, env.Stdout, env.Stderr, env.Version, action.WithReaper(env.Reaper))
}
