// Package action is the entrypoint of warden's GitHub Action: `warden
// action`, which the Docker container runs with the step's inputs in
// INPUT_* variables. It parses and validates the inputs, runs a check (or a
// pin) through internal/ops, and reports the result the ways a workflow can
// use it: a SARIF file for code scanning, annotations on the lock file, a
// job summary, and step outputs (exit-code, verdict, drift-count,
// overall-digest, sarif).
//
// Everything an MCP server declares is untrusted. Annotations, the summary
// and the outputs are written so that no tool name or description can forge
// a workflow command, define an output, or inject Markdown or HTML; the
// server itself runs with no shell and an allowlisted environment.
package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/findings"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/sethvargo/go-githubactions"

	"github.com/wardenlock/warden/internal/consensus"
	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/explain"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/mask"
	"github.com/wardenlock/warden/internal/ops"
	"github.com/wardenlock/warden/internal/report"
)

// Exit codes of the Action (and of warden generally).
const (
	ExitClean = 0
	ExitDrift = 1
	ExitError = 2
)

// Run executes the Action once and returns the process exit code: 0 clean
// (or pinned), 1 drift, 2 error. getenv supplies the environment (INPUT_*,
// GITHUB_WORKSPACE, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, …); workflow
// commands (annotations) go to stdout and diagnostics to stderr, all of it
// through one report.JobLog, so no line carries a workflow command that
// warden did not mean to write. version is warden's version, written to
// locks and SARIF.
//
// Run may change the process's working directory to the working-directory
// input while the server runs (a stdio server is started there, as the
// reference action does), and restores it before returning.
func Run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer, version string, opts ...Option) int {
	// Every line leaves through a mask of the secrets handed to servers
	// (see addSecrets), under the job log's own neutralising.
	secrets := mask.New()
	maskedOut, maskedErr := secrets.Writer(stdout), secrets.Writer(stderr)
	defer func() {
		_ = maskedOut.Flush()
		_ = maskedErr.Flush()
	}()
	log := report.NewJobLog(maskedOut, maskedErr)
	r := &runner{getenv: getenv, log: log, stdout: log.Stdout(), stderr: log.Stderr(), version: version, random: defaultRandom(), secrets: secrets}
	for _, o := range opts {
		o(r)
	}
	code := r.run(ctx)
	_ = log.Flush()
	return code
}

// Option adjusts a Run.
type Option func(*runner)

// WithReaper makes the Run's captures end the orphans a stdio server leaves
// behind (see capture.Reaper). The program's entry point owns the Reaper.
func WithReaper(reaper *capture.Reaper) Option {
	return func(r *runner) { r.reaper = reaper }
}

// runner carries one Run's environment and what it has learned so far, so
// the error path can still report paths and outputs.
type runner struct {
	getenv func(string) string
	// log is the job log; stdout and stderr are its text writers. Workflow
	// commands are written only with log's methods.
	log            *report.JobLog
	stdout, stderr io.Writer
	version        string
	random         io.Reader
	reaper         *capture.Reaper
	// secrets are the values handed to servers, masked in everything the
	// run prints or writes.
	secrets *mask.Set
	// progressMu keeps the capture's progress lines whole when several
	// servers are captured at once.
	progressMu sync.Mutex

	in        Inputs
	workspace string
	workDir   string
	lockAbs   string
	sarifAbs  string
	// surfaceAbs is the surface file, when the surface input names one.
	surfaceAbs string

	// review is the pull-request side of a check (nil when the run is not
	// on a pull request); candidatePath is where a check writes the
	// captured lock on drift, candidateAbs the same once it is written.
	review        *prReview
	candidatePath string
	candidateAbs  string
	// consensus is the community check's verdict (against-community);
	// nil without one.
	consensus *consensus.Result
}

func (r *runner) run(ctx context.Context) int {
	// In the Action's container, keep the server from reading warden's
	// environment, which holds the github-token input (hideEnvironment).
	if r.getenv("GITHUB_ACTIONS") == "true" {
		if err := hideEnvironment(); err != nil {
			r.warning(err.Error())
		}
	}
	gha := githubactions.New(githubactions.WithGetenv(r.getenv), githubactions.WithWriter(r.stdout))
	// The runner names inputs INPUT_<NAME> with hyphens kept
	// (INPUT_SERVER-CMD). Shells and some `env:` users cannot write such
	// names, so the underscore spelling (INPUT_SERVER_CMD) is accepted too;
	// it is how inputs reach the prebuilt image through `env:`.
	get := func(name string) string {
		if v := gha.GetInput(name); v != "" {
			return v
		}
		return gha.GetInput(strings.ReplaceAll(name, "-", "_"))
	}
	in, err := ParseInputs(get)
	r.in = in
	if err != nil {
		return r.fail(err)
	}
	if err := r.resolvePaths(); err != nil {
		return r.fail(err)
	}
	// As root (the container), what the run makes in the workspace and in
	// HOME goes to their owner when the run ends, on every path out.
	defer r.watchOwnership()()

	// Mask header and env values (bearer tokens and the like) before
	// anything could print them: literal ones, and what a ${NAME} or a
	// bare env NAME reads from the step's environment, which the runner
	// masks only when it came from a secret.
	if err := r.addSecrets(inputSecrets(in, r.getenv)...); err != nil {
		return r.fail(err)
	}

	// Read the base branch's lock and settle the comment before the server
	// runs in the workspace.
	if err := r.prepareReview(ctx); err != nil {
		return r.fail(err)
	}

	target := ops.Target{
		Argv:    in.Argv,
		URL:     in.URL,
		Headers: in.Headers,
		Env:     in.Env,
		Timeout: in.Timeout,
		// A cold runner downloads npx servers on every run: their start-up
		// has a budget of its own, and the log says what warden waits for.
		StartupTimeout: in.StartupTimeout,
		Progress:       r.progress,
		MaxPages:       in.MaxPages,
		MaxItems:       in.MaxItems,
		Protocol:       in.Protocol,
		// Set only for a pin (ParseInputs); a check takes its lock's.
		AcceptListErrors: in.AcceptListErrors,
		// The server runs in working-directory without warden changing its
		// own (process-wide) directory.
		Dir:    r.workDir,
		Reaper: r.reaper,
	}
	if target.Authorizer, err = r.authorizer(in); err != nil {
		return r.fail(err)
	}
	if in.Config != "" {
		return r.runConfig(ctx, target)
	}
	if in.Mode == ModePin {
		return r.pin(ctx, target)
	}
	return r.check(ctx, target)
}

// resolvePaths settles the workspace, the working directory and the lock
// and SARIF paths.
func (r *runner) resolvePaths() error {
	ws := r.getenv("GITHUB_WORKSPACE")
	if ws == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("find the workspace: GITHUB_WORKSPACE is unset and the working directory is unknown: %w", err)
		}
		ws = wd
	}
	abs, err := filepath.Abs(ws)
	if err != nil {
		return fmt.Errorf("resolve workspace %q: %w", ws, err)
	}
	r.workspace = abs
	if r.workDir, err = ResolveWorkDir(r.workspace, r.in.WorkDirInput); err != nil {
		return err
	}
	// The lock and the report are files the pull request controls: neither
	// may lead outside the workspace (see ResolveFile).
	if r.lockAbs, err = ResolveFile(r.workspace, r.workDir, "lock", r.in.Lock); err != nil {
		return err
	}
	if r.sarifAbs, err = ResolveFile(r.workspace, r.workDir, "sarif", r.in.SARIF); err != nil {
		return err
	}
	if r.in.Surface != "" {
		if r.surfaceAbs, err = ResolveFile(r.workspace, r.workDir, "surface", r.in.Surface); err != nil {
			return err
		}
	}
	return nil
}

// display returns an absolute path as the workflow should see it: relative
// to the workspace with forward slashes (the container's /github/workspace
// is a different path on the runner host, so an absolute path would be
// wrong in later steps), or unchanged when it is outside the workspace.
func (r *runner) display(abs string) string {
	if abs == "" {
		return ""
	}
	if r.workspace != "" && within(r.workspace, abs) {
		if rel, err := filepath.Rel(r.workspace, abs); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(abs)
}

// relative rewrites the absolute paths inside the workspace that msg
// quotes (the lock, the SARIF file, as the container sees them) relative to
// the workspace, as the workflow and its author know them:
// "/github/workspace/servers/a.lock" becomes "servers/a.lock", and the
// workspace itself ".".
func (r *runner) relative(msg string) string {
	if r.workspace == "" || r.workspace == string(filepath.Separator) {
		return msg
	}
	msg = strings.ReplaceAll(msg, r.workspace+string(filepath.Separator), "")
	return strings.ReplaceAll(msg, r.workspace, ".")
}

// quiet stops the runner from processing workflow commands (in both
// syntaxes) with a random token: while the server runs, whose stderr could
// reach the job log, and while the human report is printed. Every line is
// made inert by r.log anyway; this is the second fence. The returned
// function resumes processing.
func (r *runner) quiet() (func(), error) {
	token, err := randomToken(r.random)
	if err != nil {
		return nil, err
	}
	resume, err := r.log.StopCommands(token)
	if err != nil {
		return nil, err
	}
	return func() { _ = resume() }, nil
}

// quietly prints the human report with write inside a stop-commands block.
func (r *runner) quietly(write func(w io.Writer) error) error {
	resume, err := r.quiet()
	if err != nil {
		return err
	}
	defer resume()
	return write(r.stdout)
}

func (r *runner) check(ctx context.Context, target ops.Target) int {
	if err := r.verifyLock(ctx); err != nil {
		return r.fail(err)
	}
	resume, err := r.quiet()
	if err != nil {
		return r.fail(err)
	}
	if r.surfaceAbs != "" {
		target = ops.Target{}
	}
	community, err := r.prepareConsensus(ctx, target)
	if err != nil {
		resume()
		return r.fail(err)
	}
	res, err := ops.Check(ctx, ops.CheckOptions{Target: target, LockPath: r.lockAbs, Version: r.version, Surface: r.surfaceAbs, Consensus: community})
	resume()
	if err != nil {
		return r.fail(err)
	}
	r.consensus = res.Consensus
	// After a signal nothing more is written (SARIF, summary, outputs).
	if err := ops.Cancelled(ctx); err != nil {
		return r.fail(err)
	}
	lines := r.indexLock()
	// A changed launch is shown argv by argv beside the server-identity
	// item: in the SARIF, the log and the summary.
	launch := report.NewLaunchChange(res.Drift, res.Baseline, res.Current)
	if err := r.writeSARIF(res.Findings, res.Drift, lines, launch, res.Accepted, res.Consensus); err != nil {
		return r.fail(err)
	}

	verdict, code := report.VerdictClean, ExitClean
	if len(res.Drift) > 0 {
		verdict, code = report.VerdictDrift, ExitDrift
		r.writeCandidate(res)
	}
	baseline, current := "", ""
	if res.Baseline != nil {
		baseline = res.Baseline.OverallDigest
	}
	if res.Current != nil {
		current = res.Current.OverallDigest
	}
	// Findings already embedded (approved) in the lock are not raised again
	// on the job page (SPEC §9); SARIF still carries every current finding.
	if err := report.WriteAnnotations(r.log, res.NewFindings, res.Drift, report.AnnotationOptions{
		File: r.display(r.lockAbs), Lines: lines, SARIFPath: r.display(r.sarifAbs),
	}); err != nil {
		return r.fail(err)
	}
	// The words behind each item, for the log, the summary and the
	// comment only: SARIF and annotations stay hash-level.
	expls := explain.Items(res.Drift, res.BaselineSurface, res.CurrentSurface)
	if err := r.quietly(func(w io.Writer) error {
		if err := report.WriteCheckTextExplained(w, r.display(r.lockAbs), res.Drift, expls); err != nil {
			return err
		}
		if err := report.WriteAcceptedText(w, res.Accepted); err != nil {
			return err
		}
		return report.WriteLaunchText(w, launch)
	}); err != nil {
		return r.fail(err)
	}
	summary := report.Summary{
		Mode: ModeCheck, Verdict: verdict,
		LockPath: r.display(r.lockAbs), SARIFPath: r.display(r.sarifAbs),
		Findings: res.Findings, Drift: res.Drift, Explanations: expls,
		BaselineDigest: baseline, CurrentDigest: current,
		Launch: launch, Accepted: res.Accepted,
		Consensus: res.Consensus,
	}
	if verdict == report.VerdictDrift {
		summary.ReviewCommands = r.reviewCommands()
	}
	code = ops.ConsensusExit(code, res.Consensus)
	if r.review != nil {
		summary.LockChanges = r.review.changes
	}
	summary.CandidateLock = r.display(r.candidateAbs)
	if err := ops.Cancelled(ctx); err != nil {
		return r.fail(err)
	}
	if err := r.finish(summary, code, len(res.Drift), current); err != nil {
		return r.fail(err)
	}
	r.comment(verdict, res.Drift, expls, "", res.Accepted)
	return code
}

func (r *runner) pin(ctx context.Context, target ops.Target) int {
	if r.in.Sigstore.Sign && !ops.HasIDTokenSource(r.getenv) {
		return r.fail(errSignNoToken)
	}
	resume, err := r.quiet()
	if err != nil {
		return r.fail(err)
	}
	actor := r.getenv("WARDEN_ACTOR")
	if actor == "" {
		actor = r.getenv("GITHUB_ACTOR")
	}
	environment := r.getenv("WARDEN_ENV")
	if environment == "" {
		environment = "github-actions"
	}
	if err := ops.Cancelled(ctx); err != nil {
		resume()
		return r.fail(err)
	}
	// A first pin may name a lock in a directory that does not exist yet
	// (one lock per server under mcp/<name>/, say).
	if err := os.MkdirAll(filepath.Dir(r.lockAbs), 0o755); err != nil {
		resume()
		return r.fail(fmt.Errorf("create the lock's directory: %w", err))
	}
	if r.surfaceAbs != "" {
		target = ops.Target{}
	}
	res, err := ops.Pin(ctx, ops.PinOptions{
		Surface: r.surfaceAbs,
		Target:  target, LockPath: r.lockAbs,
		Approve: r.in.Approver != "", Approver: r.in.Approver,
		Version: r.version, Actor: actor, Environment: environment,
		AllowSecretInLock: r.in.AllowSecretInLock,
		Handed:            r.secrets,

		NoSnapshot:            !r.in.Snapshot,
		AllowSecretInSnapshot: r.in.AllowSecretInSnapshot,
	})
	resume()
	if err != nil {
		return r.fail(err)
	}
	// After a signal nothing more is written (SARIF, summary, outputs).
	if err := ops.Cancelled(ctx); err != nil {
		return r.fail(err)
	}
	if err := r.signLock(ctx); err != nil {
		return r.fail(err)
	}
	lines := r.indexLock()
	accepted := report.AcceptedFromLock(res.Lock, true)
	if err := r.writeSARIF(res.Findings, nil, lines, nil, accepted, nil); err != nil {
		return r.fail(err)
	}
	digest := ""
	if res.Lock != nil {
		digest = res.Lock.OverallDigest
	}
	if err := report.WriteAnnotations(r.log, res.Findings, nil, report.AnnotationOptions{
		File: r.display(r.lockAbs), Lines: lines, SARIFPath: r.display(r.sarifAbs),
	}); err != nil {
		return r.fail(err)
	}
	if err := r.quietly(func(w io.Writer) error {
		return report.WritePinText(w, r.display(r.lockAbs), res.Lock, res.Findings)
	}); err != nil {
		return r.fail(err)
	}
	summary := report.Summary{
		Mode: ModePin, Verdict: report.VerdictClean,
		LockPath: r.display(r.lockAbs), SARIFPath: r.display(r.sarifAbs),
		Findings: res.Findings, CurrentDigest: digest, Approver: r.in.Approver,
		Accepted: accepted,
	}
	if err := ops.Cancelled(ctx); err != nil {
		return r.fail(err)
	}
	if err := r.finish(summary, ExitClean, 0, digest); err != nil {
		return r.fail(err)
	}
	return ExitClean
}

// indexLock reads the lock back to place results on their lines, as
// bounded as the lock reader (a regular file of at most lock.MaxFileBytes).
// Failing to read it only costs line numbers.
func (r *runner) indexLock() *report.LineIndex {
	data, err := lock.ReadBytes(r.lockAbs)
	if err != nil {
		return nil
	}
	return report.IndexLock(data)
}

// writeSARIF writes the SARIF file atomically (lock.WriteAtomic: a
// temporary file and a rename, never through a symbolic link), creating
// its directory if needed. The path is checked again first: the server has
// run in the workspace since the inputs were resolved. launch, when set,
// is shown beside the server-identity result; accepted are the lists
// accepted as errors (run properties and notifications, not results).
func (r *runner) writeSARIF(findings []lock.Finding, items []drift.Item, lines *report.LineIndex, launch *report.LaunchChange, accepted []report.AcceptedList, cons *consensus.Result) error {
	var buf bytes.Buffer
	if err := report.WriteSARIF(&buf, findings, items, report.SARIFOptions{
		Version:     r.version,
		ArtifactURI: report.ArtifactURI(r.lockAbs, r.workspace),
		Lines:       lines,
		Launch:      launch,
		Accepted:    accepted,
		Consensus:   cons,
	}); err != nil {
		return err
	}
	return r.writeSARIFBytes(buf.Bytes())
}

// finish writes the summary and the outputs of a completed run.
func (r *runner) finish(s report.Summary, code, driftCount int, digest string) error {
	if err := r.writeSummary(s); err != nil {
		return err
	}
	verdict := s.Verdict
	outputs := []Output{
		{"exit-code", strconv.Itoa(code)},
		{"verdict", verdict},
		{"drift-count", strconv.Itoa(driftCount)},
		{"overall-digest", digest},
		{"sarif", r.display(r.sarifAbs)},
		{"candidate-lock", r.display(r.candidateAbs)},
	}
	// The verdict id only: never the reason, which quotes the corpus.
	if r.consensus != nil {
		outputs = append(outputs, Output{"consensus", string(r.consensus.Verdict)})
	}
	return r.writeOutputs(outputs)
}

// progress writes a capture's progress line to the job log.
func (r *runner) progress(line string) {
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	fmt.Fprintf(r.stderr, "warden: %s\n", line)
}

// fail reports err every way the workflow can see it — an error
// annotation, a line on stderr, the job summary, and outputs with verdict
// "error" — and returns ExitError. The error may quote input of any size;
// each of these carries it clipped (report.Message, report.RenderSummary).
// Reporting problems are written to stderr and do not change the exit code.
// On a pull request with comment: true, warden's comment says so too.
func (r *runner) fail(err error) int {
	text := r.relative(err.Error())
	msg := report.Message(text)
	fmt.Fprintf(r.stderr, "error: %s\n", msg)
	_ = r.log.Command("error", []report.Property{{Key: "title", Value: "warden"}}, msg)
	lockPath := ""
	if r.lockAbs != "" {
		lockPath = r.display(r.lockAbs)
	}
	mode := r.in.Mode
	if mode == "" {
		mode = ModeCheck
	}
	// After a signal (SIGINT/SIGTERM, as when the run is cancelled) nothing
	// more is written: no summary, no outputs.
	if errors.Is(err, ops.ErrCancelled) {
		return ExitError
	}
	if werr := r.writeSummary(report.Summary{Mode: mode, Verdict: report.VerdictError, LockPath: lockPath, Error: text}); werr != nil {
		fmt.Fprintf(r.stderr, "error: %s\n", report.Message(werr.Error()))
	}
	if werr := r.writeOutputs([]Output{
		{"exit-code", strconv.Itoa(ExitError)},
		{"verdict", report.VerdictError},
		{"drift-count", ""},
		{"overall-digest", ""},
		{"sarif", ""},
		{"candidate-lock", ""},
	}); werr != nil {
		fmt.Fprintf(r.stderr, "error: %s\n", report.Message(werr.Error()))
	}
	r.comment(report.VerdictError, nil, nil, text, nil)
	return ExitError
}

// writeSummary appends the job summary when GITHUB_STEP_SUMMARY is set.
func (r *runner) writeSummary(s report.Summary) error {
	path := r.getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	return r.appendMasked(path, func(w io.Writer) error { return report.WriteSummary(w, s) })
}

// writeOutputs appends step outputs when GITHUB_OUTPUT is set.
func (r *runner) writeOutputs(outs []Output) error {
	path := r.getenv("GITHUB_OUTPUT")
	if path == "" {
		return nil
	}
	return r.appendMasked(path, func(w io.Writer) error { return WriteOutputs(w, r.random, outs) })
}

// reviewCommands are the commands the summary shows on drift: reproduce the
// check, capture the current surface into a scratch lock, compare, and
// re-pin with approval. They are run from the working directory.
func (r *runner) reviewCommands() []string {
	server := r.serverArgs()
	lockArg := shellQuote(r.in.Lock)
	var cmds []string
	if r.in.WorkDirInput != "." {
		cmds = append(cmds, "cd "+shellQuote(r.in.WorkDirInput))
	}
	return append(cmds,
		"warden check --lock "+lockArg+" "+server,
		"warden pin --lock candidate.lock "+server,
		"warden diff "+lockArg+" candidate.lock",
		"warden pin --lock "+lockArg+" --approve --approver <you> "+server,
	)
}

// serverArgs renders the target as warden CLI arguments. Header and env
// values are not repeated (they may be secrets); ${NAME} references are.
func (r *runner) serverArgs() string {
	var parts []string
	if r.in.Surface != "" {
		return "--surface " + shellQuote(r.display(r.surfaceAbs))
	}
	if r.in.URL != "" {
		for _, h := range r.in.Headers {
			name, v, _ := strings.Cut(h, ": ")
			if !isHeaderReference(v) {
				v = "<value>"
			}
			parts = append(parts, "--header", shellQuote(name+": "+v))
		}
		u := r.in.URL
		if len(findings.ScanField(u, "")) > 0 {
			u = "<redacted>"
		}
		parts = append(parts, "--url", shellQuote(u))
		return strings.Join(parts, " ")
	}
	for _, e := range r.in.Env {
		name, _, _ := strings.Cut(e, "=")
		parts = append(parts, "--env", name)
	}
	parts = append(parts, "--")
	for _, a := range r.in.Argv {
		// The summary is a page anyone with read access sees: an argv token
		// that looks like a secret is shown redacted.
		if len(findings.ScanField(a, "")) > 0 {
			a = "<redacted>"
		}
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// isHeaderReference reports whether a header value carries no literal
// secret: a ${NAME} reference, optionally after an authorization scheme
// word ("Bearer ${TOKEN}").
func isHeaderReference(v string) bool {
	if scheme, rest, ok := strings.Cut(v, " "); ok {
		for _, c := range scheme {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return false
			}
		}
		v = rest
	}
	name, ok := strings.CutPrefix(v, "${")
	if !ok {
		return false
	}
	name, ok = strings.CutSuffix(name, "}")
	return ok && capture.IsEnvName(name)
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("@%+=:,./-_", c)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
