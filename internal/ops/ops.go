// Package ops carries out warden's operations — pin, check, diff, approve —
// as functions that return structured results. The CLI (internal/cli) and the
// GitHub Action entrypoint (internal/action) are thin layers over it that
// differ only in how they take input and present output.
package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/consensus"
	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/mask"
	"github.com/wardenlock/warden/internal/report"
	"github.com/wardenlock/warden/internal/snapshot"
	"github.com/wardenlock/warden/internal/surface"
)

// Target says which server to capture and how: the capture options as
// they are (argv or URL, headers, extra environment, working directory,
// bounds and timeout).
type Target = capture.Options

// ValidateTarget refuses a target that names both or neither of a command
// and a URL, and a URL without a scheme ("127.0.0.1:9").
func ValidateTarget(t Target) error {
	switch {
	case len(t.Argv) > 0 && t.URL != "":
		return errors.New("give either a server command or --url, not both")
	case len(t.Argv) == 0 && t.URL == "":
		return errors.New("no server given: pass '-- CMD ARGS...' or --url URL (or --config FILE for a client config's servers, --surface FILE for a surface file)")
	case len(t.Argv) > 0 && t.Argv[0] == "":
		return errors.New("the server command is empty")
	case t.URL != "" && !strings.Contains(t.URL, "://"):
		// Not echoed: a URL may carry a credential.
		return errors.New("--url needs a scheme: write it as http://HOST:PORT/PATH or https://HOST/PATH")
	}
	return nil
}

// ErrCapture wraps every capture failure, so callers can say "capture failed".
var ErrCapture = errors.New("capture failed")

// ErrCancelled is wrapped by the error of every operation that stopped
// because its context was cancelled (in the CLI: SIGINT or SIGTERM).
// Operations check the context before they launch a server and before they
// write anything, so after cancellation nothing is launched or written.
var ErrCancelled = errors.New("cancelled")

// Cancelled returns nil while ctx is live, and once it is done an error
// wrapping ErrCancelled that carries the cause ("cancelled: SIGTERM
// received", or the context's own error).
func Cancelled(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrCancelled, context.Cause(ctx))
}

// Capture captures the target's surface. A cancelled context launches
// nothing, and a capture that ends after cancellation reports it as
// cancelled rather than as whatever the cut-off transport said.
func Capture(ctx context.Context, t Target) (*surface.Surface, error) {
	if err := ValidateTarget(t); err != nil {
		return nil, err
	}
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	s, err := capture.Capture(ctx, t)
	if cerr := Cancelled(ctx); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCapture, err)
	}
	return s, nil
}

// PinOptions configure Pin.
type PinOptions struct {
	Target   Target
	LockPath string
	Approve  bool
	Approver string
	// Version is warden's version, written to the lock.
	Version string
	// Actor and Environment are recorded in pin.pinner.
	Actor, Environment string
	// Now is the clock (tests fix it); nil means time.Now.
	Now func() time.Time
	// AllowSecretInLock writes the lock even when a value it stores
	// verbatim matches a secret pattern (see StoredSecretError).
	AllowSecretInLock bool
	// Surface, when set, pins the surface file at this path ("-" reads
	// Stdin) instead of capturing Target, which must then name no server:
	// nothing is launched.
	Surface string
	// Stdin is what Surface "-" reads.
	Stdin io.Reader
	// Handed are the values handed to the server (--env, --header, a
	// config's variables): a lock that would store one verbatim is refused
	// like a secret (see storedHandedSecrets).
	Handed *mask.Set
	// NoSnapshot writes no surface snapshot beside the lock (and removes
	// the one there, which would no longer match it).
	NoSnapshot bool
	// AllowSecretInSnapshot writes the snapshot even when the secret
	// screen finds a secret in it (see snapshot.SecretError).
	AllowSecretInSnapshot bool
	// Vet, when set, is asked about the lock built before anything is
	// written: its error refuses the pin (a config's allowlist naming a
	// tool the server lacks).
	Vet func(*lock.Lock) error
}

// PinResult is what Pin wrote.
type PinResult struct {
	// Lock is the lock written. After a pin from a surface file, which
	// writes each tool entry while it reads the file, its tool entries
	// hold only their name and entry digest (the file has the rest).
	Lock     *lock.Lock
	Findings []lock.Finding
	// Snapshot is the path of the surface snapshot written beside the
	// lock ("" with NoSnapshot).
	Snapshot string
	// RemovedSnapshot is the path of the old snapshot a pin with
	// NoSnapshot removed ("" when there was none).
	RemovedSnapshot string
}

// Pin captures the target (or reads o.Surface), builds a lock with embedded
// findings and writes it atomically to o.LockPath. A failed or cancelled
// capture writes nothing and leaves an existing lock untouched; so does
// cancellation at any point before the write.
func Pin(ctx context.Context, o PinOptions) (*PinResult, error) {
	if o.Approve && o.Approver == "" {
		return nil, errors.New("--approve needs --approver ID")
	}
	if o.LockPath == "" {
		o.LockPath = "warden.lock"
	}
	folder, err := checkLockPath(o.LockPath)
	if err != nil {
		return nil, err
	}
	// The URL is stored verbatim in the lock: refuse credentials in it
	// before connecting.
	if stored := storedURL(o.Target); stored != "" {
		if err := storedURLError(stored, o.AllowSecretInLock); err != nil {
			return nil, err
		}
	}
	var b *built
	// accepted are the list errors the capture accepted, for the pin block.
	var accepted []lock.AcceptedListError
	// snap is the snapshot, rendered before anything is written.
	var snap *snapshot.Parts
	// A pin from a surface file writes its lock while reading the file
	// (see lockSink); anything that stops the pin before Finish aborts it,
	// leaving o.LockPath as it was.
	var sink *lockSink
	defer func() {
		if sink != nil {
			sink.w.Abort()
		}
	}()
	if o.Surface != "" {
		if err := validateSurface(o.Target); err != nil {
			return nil, err
		}
		if len(o.Target.AcceptListErrors) > 0 {
			return nil, errSurfaceAccepts
		}
		sink = newLockSink(o.LockPath, o.Version)
		sink.snapshot = !o.NoSnapshot
		if o.NoSnapshot {
			// A pin that keeps each tool's snapshot text holds about the
			// surface file's size until the end: a 32 MiB soft limit would
			// collect all the time (see paceGC).
			defer paceGC(pinMemoryLimit(runtime.GOMAXPROCS(0)))()
		}
		var err error
		if b, err = readSurface(ctx, o.Surface, o.Stdin, o.Target.MaxItems, sink); err != nil {
			return nil, err
		}
		if u := b.lock.Server.URL; u != nil && *u != "" {
			if err := storedURLError(*u, o.AllowSecretInLock); err != nil {
				return nil, err
			}
		}
	} else {
		o.Target.Version = o.Version
		s, err := Capture(ctx, o.Target)
		if err != nil {
			return nil, err
		}
		if b, err = buildCaptured(s, "build lock"); err != nil {
			return nil, err
		}
		accepted = pinnedAccepted(s)
		if !o.NoSnapshot {
			snap = snapshot.NewParts(s)
		}
	}
	if sink != nil && sink.snapshot {
		snap = sink.snapshotParts(b.protocol)
	}
	l := b.lock
	fs := b.findings
	l.Findings = fs
	l.WardenVersion = o.Version
	approver := ""
	if o.Approve {
		approver = o.Approver
	}
	l.Pin = lock.NewPin(lock.PinInfo{
		Version:         o.Version,
		ProtocolVersion: b.protocol,
		Now:             now(o.Now),
		Approver:        approver,
		Actor:           o.Actor,
		Environment:     o.Environment,
	}, l.OverallDigest)
	l.Pin.AcceptedListErrors = accepted
	if o.Vet != nil {
		if err := o.Vet(l); err != nil {
			return nil, err
		}
	}
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	if err := folder.recheck(o.LockPath); err != nil {
		return nil, err
	}
	// The snapshot is screened and staged before the lock is written, and
	// renamed into place only after: a pin that fails anywhere leaves the
	// old lock and the old snapshot as they were.
	staged, snapErr := stageSnapshot(o, snap)
	defer func() {
		if staged != nil {
			staged.Discard()
		}
	}()
	// The lock must not store a secret verbatim: checked while it is
	// written, and nothing replaces o.LockPath if one is found.
	var check func() error
	switch {
	case o.AllowSecretInLock:
	case sink != nil:
		screened := sink
		check = func() error { return screened.storedSecrets(l) }
	default:
		check = func() error {
			if err := storedSecrets(l); err != nil {
				return err
			}
			return storedHandedSecrets(l, o.Handed)
		}
	}
	if snapErr != nil {
		// The lock's own refusal, if any, comes first; either way
		// nothing is written.
		lockCheck := check
		check = func() error {
			if lockCheck != nil {
				if err := lockCheck(); err != nil {
					return err
				}
			}
			return snapErr
		}
	}
	if sink != nil {
		err := sink.w.Finish(l, check)
		sink = nil // finished or, on an error, aborted
		if err != nil {
			return nil, err
		}
	} else if err := lock.WriteFileChecked(o.LockPath, l, check); err != nil {
		return nil, err
	}
	res := &PinResult{Lock: l, Findings: fs}
	if err := commitSnapshot(o, &staged, res); err != nil {
		return nil, err
	}
	return res, nil
}

// stageSnapshot screens the snapshot text of a pin for secrets (unless
// allowed) and stages it beside the lock; nil with NoSnapshot. Its error
// is the pin's refusal, to be given after the lock's own.
func stageSnapshot(o PinOptions, snap *snapshot.Parts) (*snapshot.Staged, error) {
	if o.NoSnapshot {
		// The old snapshot is removed once the lock is written: refuse now
		// what could not be removed then.
		if info, err := os.Lstat(snapshot.Path(o.LockPath)); err == nil && !info.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file: it cannot be a snapshot, nor be removed as a stale one (remove it)", snapshot.Path(o.LockPath))
		}
		return nil, nil
	}
	if !o.AllowSecretInSnapshot {
		var handed func(string) bool
		if o.Handed.Len() > 0 {
			handed = o.Handed.Contains
		}
		if err := snap.Screen(handed); err != nil {
			return nil, err
		}
	}
	return snapshot.Stage(snapshot.Path(o.LockPath), snap)
}

// commitSnapshot puts the staged snapshot in place once the lock is
// written, or, with NoSnapshot, removes the snapshot of the lock it
// replaced, which would no longer match. A failure here comes after the
// lock was written: the old snapshot is then removed rather than left
// beside a lock it does not match (see snapshot.Staged.Commit).
func commitSnapshot(o PinOptions, staged **snapshot.Staged, res *PinResult) error {
	path := snapshot.Path(o.LockPath)
	if o.NoSnapshot {
		existed := snapshot.Exists(path)
		if err := snapshot.Remove(path); err != nil {
			return fmt.Errorf("the lock %s was written, but the snapshot beside it no longer matches it: %w", o.LockPath, err)
		}
		if existed {
			res.RemovedSnapshot = path
		}
		return nil
	}
	st := *staged
	*staged = nil
	if err := st.Commit(); err != nil {
		return fmt.Errorf("the lock %s was written, but not its snapshot: %w", o.LockPath, err)
	}
	res.Snapshot = path
	return nil
}

// surfaceResult is a surface file read on another goroutine.
type surfaceResult struct {
	b   *built
	err error
}

// storedURL is the URL a pin of t would store: the recorded identity's when
// there is one (a client config's URL before its variables are expanded).
func storedURL(t Target) string {
	if t.Identity != nil {
		return t.Identity.URL
	}
	return t.URL
}

func now(clock func() time.Time) time.Time {
	if clock == nil {
		return time.Now()
	}
	return clock()
}

// CheckOptions configure Check.
type CheckOptions struct {
	Target   Target
	LockPath string
	Version  string
	// Surface, when set, checks the surface file at this path ("-" reads
	// Stdin) instead of capturing Target, which must then name no server.
	Surface string
	// Stdin is what Surface "-" reads.
	Stdin io.Reader
	// Consensus, when set, is a prepared community check (PrepareConsensus)
	// that Check compares the captured surface with.
	Consensus *consensus.Prepared
}

// CheckResult is the outcome of a check: the stored baseline, the lock built
// from the fresh capture, the drift between them and the current surface's
// static findings.
type CheckResult struct {
	// Baseline and Current are the lock checked against and the one the
	// check built. After a check of a surface file, the entries the two
	// share byte for byte may stand without their skeletons' text, read
	// again from the lock file by Load: call it before writing, hashing
	// or showing either beyond its hashes (lock.Lock.Load).
	Baseline *lock.Lock
	Current  *lock.Lock
	Drift    []drift.Item
	Findings []lock.Finding
	// NewFindings are the current findings not embedded (approved) in the
	// baseline; they are reported, never failed (SPEC §9).
	NewFindings []lock.Finding
	// ProtocolVersion is the MCP revision the capture spoke (what a pin
	// records as pin.mcp_protocol_version).
	ProtocolVersion string
	// BaselineSurface is the surface the baseline lock commits to, from
	// the snapshot beside it, verified against it (snapshot.Verify); nil
	// when the lock has no snapshot.
	BaselineSurface *surface.Surface
	// CurrentSurface is the surface checked. After a capture it is the
	// whole capture. After a check of a surface file, which is streamed
	// and never held whole, it holds only the entries that drifted: the
	// tools that are new or whose entry digest changed, and every resource
	// and prompt (few, and small), read from the file a second time when
	// there is drift; it is nil when nothing drifted or the file was
	// standard input. CurrentSurfacePartial says which.
	CurrentSurface *surface.Surface
	// CurrentSurfacePartial is set when CurrentSurface holds only the
	// drifted tools (a check of a surface file).
	CurrentSurfacePartial bool
	// Accepted are the baseline's accepted list errors (its
	// pin.accepted_list_errors), each saying whether this check's capture
	// got the error again; every report of the check shows them.
	Accepted []report.AcceptedList
	// Consensus is the community check's verdict (nil without one).
	Consensus *consensus.Result
	// surfaceFile is the surface file checked ("" after a capture), which
	// CandidateSnapshot reads again for a whole surface.
	surfaceFile string
}

// Check reads and validates the lock before spawning anything, captures the
// target, and compares. Once ctx is cancelled it launches nothing and
// returns no result, only an error wrapping ErrCancelled.
func Check(ctx context.Context, o CheckOptions) (*CheckResult, error) {
	if o.LockPath == "" {
		o.LockPath = "warden.lock"
	}
	if o.Surface != "" {
		if err := validateSurface(o.Target); err != nil {
			return nil, err
		}
	} else if err := ValidateTarget(o.Target); err != nil {
		return nil, err
	}
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	// The snapshot beside the lock, if any, is read while the lock is.
	snap := startSnapshot(ctx, o.LockPath)
	defer snap.close()
	var base *lock.Lock
	var baseSurface *surface.Surface
	var b *built
	var captured *surface.Surface
	var err error
	if o.Surface != "" {
		// A surface file launches nothing. The lock is read but for its
		// tool entries (lock.Deferred), which are only cut out and noted,
		// while the surface is read on every core, each tool rendered as
		// a lock holds it: the lock's entry of that text, if any, is that
		// tool. Finish reads the lock's entries that no tool was taken
		// for: an unchanged lock costs little more than cutting its
		// entries out. The lock's refusal still comes first.
		restoreGC := func() {}
		if o.Surface != "-" && !snapshot.Exists(snapshot.Path(o.LockPath)) {
			// While the surface is read against the lock, the live heap
			// is the tools built (about 4 KB each of the realistic
			// surface's 4.8) and what the lock's entries are noted by:
			// under seven eighths of the surface file's bytes. What comes
			// after (the words of drifted tools, read again) is collected
			// as usual.
			restoreGC = paceGC(pacedMemoryLimit(0.875, o.Surface))
		}
		defer restoreGC()
		known, err := startLockDeferred(ctx, o.LockPath)
		if err != nil {
			return nil, err
		}
		if !snap.present() && o.Consensus == nil {
			// The entries a tool's text finds in the lock are left
			// without their skeletons' text: only a snapshot's
			// verification and the community comparison read every
			// skeleton, and drift reads those of the entries that differ
			// (loaded below).
			known.LeaveUnloaded()
		}
		// The lock is finished and verified on a goroutine of its own as
		// soon as the last tool is taken, beside the rest of the
		// surface's lock (sorting, the overall digest, the findings).
		type finished struct {
			l   *lock.Lock
			err error
		}
		baseDone := make(chan finished, 1)
		finishBase := func() {
			go func() {
				l, err := known.Finish(ctx)
				if err == nil && Cancelled(ctx) == nil {
					err = verifyLock(o.LockPath, l)
				}
				baseDone <- finished{l, err}
			}()
		}
		k := &against{d: known, final: finishBase}
		read, serr := readSurfaceKnown(ctx, o.Surface, o.Stdin, o.Target.MaxItems, nil, k)
		k.tookAll()
		f := <-baseDone
		base, err = f.l, f.err
		restoreGC()
		if cerr := Cancelled(ctx); err != nil && cerr != nil {
			err = cerr
		}
		if err == nil {
			err = Cancelled(ctx)
		}
		if err == nil {
			baseSurface, err = snap.verify(base)
		}
		if err == nil {
			err = serr
		}
		if err != nil {
			return nil, err
		}
		b = read
	} else {
		base, err = readLock(ctx, o.LockPath)
		if err == nil {
			err = Cancelled(ctx)
		}
		// A lock whose entries do not reproduce its own digests was edited
		// by hand or tampered with; comparing against it could report
		// "clean" for entries nobody reviewed (equal overall digests skip
		// the entry diff).
		if err == nil {
			err = verifyLock(o.LockPath, base)
		}
		// The snapshot is verified before anything is launched: one that
		// disagrees with its lock is refused, not shown.
		if err == nil {
			baseSurface, err = snap.verify(base)
		}
		if err != nil {
			return nil, err
		}
		o.Target.Version = o.Version
		// A server that serves both eras is spoken to in the era its lock
		// was pinned in, so that how fast it starts cannot change which
		// items it declares (some servers declare different items per era).
		if o.Target.Protocol == "" || o.Target.Protocol == capture.ProtocolAuto {
			o.Target.Prefer = capture.EraOf(base.Pin.MCPProtocolVersion)
		}
		// Only what the pin accepted, and recorded, is accepted again; a
		// check is never told to accept anything else.
		o.Target.AcceptListErrors = acceptsOf(base)
		s, err := Capture(ctx, o.Target)
		if err != nil {
			return nil, err
		}
		if b, err = buildCaptured(s, "build lock from capture"); err != nil {
			return nil, err
		}
		captured = s
	}
	cur, fs := b.lock, b.findings
	// The entries whose schemas drift are compared skeleton by skeleton.
	if err := lock.LoadDiffering(ctx, base, cur); err != nil {
		return nil, err
	}
	res := &CheckResult{
		Baseline:    base,
		Current:     cur,
		Drift:       drift.Compare(base, cur),
		Findings:    fs,
		NewFindings: newFindings(base.Findings, fs),

		ProtocolVersion: b.protocol,
		BaselineSurface: baseSurface,
		CurrentSurface:  captured,
		Accepted:        checkAccepted(base, captured),
	}
	if o.Consensus != nil {
		res.Consensus = o.Consensus.Compare(cur)
	}
	if o.Surface != "" {
		res.CurrentSurfacePartial = true
		if o.Surface != "-" {
			res.surfaceFile = o.Surface
			if len(res.Drift) > 0 {
				if res.CurrentSurface, err = drifted(ctx, o.Surface, o.Target.MaxItems, base, cur); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	return res, nil
}

// Load reads again the entries of Baseline and Current left without their
// skeletons' text (see CheckResult), so that both are whole.
func (r *CheckResult) Load(ctx context.Context) error {
	for _, l := range []*lock.Lock{r.Baseline, r.Current} {
		if l == nil {
			continue
		}
		if err := l.Load(ctx); err != nil {
			return err
		}
	}
	return nil
}

func newFindings(approved, current []lock.Finding) []lock.Finding {
	type key struct{ rule, target, snippet string }
	seen := make(map[key]bool, len(approved))
	for _, f := range approved {
		seen[key{f.RuleID, f.Target, f.Snippet}] = true
	}
	var out []lock.Finding
	for _, f := range current {
		if !seen[key{f.RuleID, f.Target, f.Snippet}] {
			out = append(out, f)
		}
	}
	return out
}

// DiffResult is an offline comparison of two stored locks.
type DiffResult struct {
	A, B  *lock.Lock
	Drift []drift.Item
	// ASurface and BSurface are the surfaces A and B commit to, from the
	// snapshots beside them, each verified against its lock; nil for a
	// lock without a snapshot.
	ASurface, BSurface *surface.Surface
}

// Diff reads two locks and compares them, A as the baseline. Like Check, it
// refuses a lock whose entries do not reproduce its own digests (edited or
// tampered) rather than compare it. Once ctx is cancelled it returns an
// error wrapping ErrCancelled instead.
func Diff(ctx context.Context, pathA, pathB string) (*DiffResult, error) {
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	// A is read and verified first, and B then takes from A every tool
	// entry whose text A holds (lock.ReadFileIndexed): with few tools
	// changed, B costs little more than cutting its entries out and
	// comparing them with A's. A's refusal, if any, is the one reported,
	// and B is then not read.
	// Neither lock keeps its skeletons' text but for the tools whose
	// schemas differ (lock.ReadFileLazy, LoadDiffering), unless a
	// snapshot beside either is verified against it.
	lazy := !snapshot.Exists(snapshot.Path(pathA)) && !snapshot.Exists(snapshot.Path(pathB))
	if lazy {
		// Each tool's name, hashes and digest (no skeletons): the live
		// heap is under a fifth of the locks' bytes.
		defer paceGC(pacedMemoryLimit(0.2, pathA, pathB))()
	}
	a, ax, err := readLockIndexed(ctx, pathA, nil, lazy)
	defer ax.Close()
	if err == nil {
		err = verifyLock(pathA, a)
	}
	var aSurface *surface.Surface
	if err == nil {
		aSurface, err = readSnapshot(ctx, pathA, a)
	}
	if err != nil {
		return nil, err
	}
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	b, _, err := readLockIndexed(ctx, pathB, ax, lazy)
	if err == nil {
		err = verifyLock(pathB, b)
	}
	if err == nil && lazy {
		err = lock.LoadDiffering(ctx, a, b)
	}
	var bSurface *surface.Surface
	if err == nil {
		bSurface, err = readSnapshot(ctx, pathB, b)
	}
	if err != nil {
		return nil, err
	}
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	res := &DiffResult{A: a, B: b, Drift: drift.Compare(a, b), ASurface: aSurface, BSurface: bSurface}
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	return res, nil
}

// RotateOptions configure Rotate.
type RotateOptions struct {
	LockPath string
	// Approver, when set, re-binds the approval to the (unchanged) digest.
	Approver string
	// Actor records who rotated; empty falls back to "unknown".
	Actor string
	// Note is an optional attestation note (at most 1000 characters).
	Note        string
	Version     string
	Environment string
	Now         func() time.Time
}

// Rotate re-attests an existing lock without re-capturing (the reference's
// `lock rotate`; `warden approve` is the same act with an approver). It
// refuses, writing nothing, when the stored entries do not reproduce the
// stored overall_digest, or when the lock carries an approval that no longer
// matches it and no new approver re-binds it; and once ctx is cancelled.
func Rotate(ctx context.Context, o RotateOptions) (*lock.Lock, error) {
	if len([]rune(o.Note)) > lock.MaxNoteLength {
		return nil, fmt.Errorf("--note is longer than %d characters", lock.MaxNoteLength)
	}
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	l, err := readLockFile(ctx, o.LockPath)
	if err != nil {
		return nil, err
	}
	if err := lock.Verify(l); err != nil {
		return nil, fmt.Errorf("lock %s does not verify against its own entries (refusing to attest it): %w", o.LockPath, err)
	}
	p := &l.Pin
	if o.Approver == "" && p.Approved && (p.ApprovedDigest == nil || *p.ApprovedDigest != l.OverallDigest) {
		return nil, fmt.Errorf("lock %s has a stale approval (approved_digest does not match overall_digest); re-approve with --approver", o.LockPath)
	}
	at := now(o.Now).UTC().Format(lock.TimeFormat)
	actor, role := o.Actor, "pinner"
	if o.Approver != "" {
		role = "approver"
		actor = o.Approver
		lock.Approve(p, o.Approver, at, l.OverallDigest)
	}
	if actor == "" {
		actor = "unknown"
	}
	p.HasAttestations = true
	p.Attestations = append(p.Attestations, lock.Attestation(actor, role, at, l.OverallDigest, o.Note))
	p.HasRotatedAt = true
	p.RotatedAt = &at
	count := 1
	if p.RotationCount != nil {
		count = *p.RotationCount + 1
	}
	p.HasRotationCount = true
	p.RotationCount = &count
	fresh := lock.NewPin(lock.PinInfo{Version: o.Version, Actor: o.Actor, Environment: o.Environment}, "")
	p.HasPinner = true
	p.Pinner = fresh.Pinner
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	if err := lock.WriteFile(o.LockPath, l); err != nil {
		return nil, err
	}
	return l, nil
}
