package consensus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wardenlock/warden/internal/attest"
	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/lock"
)

// Verifier checks that bundle is a valid signature, by attester a, of the
// statement binding coordinate to digest (attest.Root.Verify in warden;
// tests inject their own).
type Verifier interface {
	Verify(bundle []byte, coordinate, digest string, a Attester) error
}

// DefaultMinAttesters is how many agreeing attesters a match needs unless
// told otherwise (the reference's default).
const DefaultMinAttesters = 2

// Bounds on what is read from a corpus: its locks are single servers'.
const (
	maxCorpusLock = 32 << 20
	maxBundle     = 1 << 20
)

// Options configure a consensus check.
type Options struct {
	// Corpus is a directory or a git URL; Ref an exact commit (required
	// for a URL).
	Corpus, Ref string
	// Attesters and AttestersFile name the attesters trusted (both may be
	// given).
	Attesters     []Attester
	AttestersFile string
	// Coordinate is the release, "<eco>:<pkg>@<version>"; when empty it
	// is inferred from Launch.
	Coordinate string
	Launch     []string
	// MinAttesters is the agreement a match needs (0: DefaultMinAttesters).
	MinAttesters     int
	RequireConsensus bool
	Verifier         Verifier
	FetchTimeout     time.Duration
}

// attestation is one trusted attester's verified lock.
type attestation struct {
	id    string
	level int
	// surface is the lock's surface digest at its own level.
	surface string
}

// Prepared holds what the corpus says, verified, before anything is
// captured: a check fails closed on bad trust, an unresolved coordinate or
// an unreadable corpus without launching the server.
type Prepared struct {
	opts   Options
	coord  attest.Coordinate
	result Result
	// failed, when set, is the verdict already reached.
	failed       *Result
	attestations []attestation
}

// Failed returns the fail-closed result Prepare reached, or nil.
func (p *Prepared) Failed() *Result { return p.failed }

// Prepare resolves the coordinate and the trusted attesters, opens the
// corpus and reads and verifies each trusted attester's lock for the
// coordinate. It never returns nil; Failed says whether it already
// reached a verdict.
func Prepare(ctx context.Context, o Options) *Prepared {
	if o.MinAttesters <= 0 {
		o.MinAttesters = DefaultMinAttesters
	}
	p := &Prepared{opts: o}
	p.result = Result{MinAttesters: o.MinAttesters, RequireConsensus: o.RequireConsensus, Corpus: o.Corpus, Ref: o.Ref}
	fail := func(v Verdict, format string, args ...any) *Prepared {
		r := p.result
		r.Verdict = v
		r.Reason = fmt.Sprintf(format, args...)
		r.Attesters = nil
		p.failed = &r
		return p
	}
	var err error
	if o.Coordinate != "" {
		p.coord, err = attest.ParseCoordinate(o.Coordinate)
	} else {
		p.coord, err = attest.InferCoordinate(o.Launch)
		if err != nil {
			err = fmt.Errorf("%w; give --coordinate <ecosystem>:<package>@<version>", err)
		}
	}
	if err != nil {
		return fail(Unresolved, "%v", err)
	}
	p.result.Coordinate = p.coord.String()
	if o.Verifier == nil {
		return fail(Unverifiable, "no signature verifier")
	}
	c, err := openCorpus(ctx, o.Corpus, o.Ref, o.FetchTimeout)
	if err != nil {
		var ce *corpusError
		if errors.As(err, &ce) {
			return fail(ce.verdict, "%s", ce.msg)
		}
		return fail(Unreachable, "%v", err)
	}
	defer c.cleanup()
	attesters := slices.Clone(o.Attesters)
	if o.AttestersFile != "" {
		if inside(o.AttestersFile, c.dir) {
			return fail(UnpinnedTrust, "attesters file %s is inside the corpus: a corpus naming its own attesters proves nothing; keep the attesters you trust outside it", o.AttestersFile)
		}
		fromFile, err := ReadAttestersFile(o.AttestersFile)
		if err != nil {
			return fail(UnpinnedTrust, "%v", err)
		}
		attesters = append(attesters, fromFile...)
	}
	if attesters, err = dedupe(attesters); err != nil {
		return fail(UnpinnedTrust, "%v", err)
	}
	if len(attesters) == 0 {
		return fail(UnpinnedTrust, "no trusted attester: give --attester ID=IDENTITY@ISSUER or --attesters-file F (the corpus's own attesters.json is discovery, not trust)")
	}
	slices.SortFunc(attesters, func(a, b Attester) int { return strings.Compare(a.ID, b.ID) })
	if fi, err := os.Lstat(filepath.Join(c.dir, "locks")); err != nil || !fi.IsDir() {
		return fail(Unreachable, "corpus %s has no locks/ directory", o.Corpus)
	}
	dir := filepath.Join(c.dir, "locks", filepath.FromSlash(p.coord.CorpusDir()))
	for _, a := range attesters {
		ar, at, v := p.readAttestation(c.dir, dir, a)
		p.result.Attesters = append(p.result.Attesters, ar)
		if v != "" {
			return fail(v, "attester %s: %s", a.ID, ar.Reason)
		}
		if at != nil {
			p.attestations = append(p.attestations, *at)
		}
	}
	return p
}

// readAttestation reads attester a's lock and bundle in dir. It returns a
// verdict when the lock cannot be trusted or compared, nil attestation
// when the attester has none.
func (p *Prepared) readAttestation(root, dir string, a Attester) (AttesterResult, *attestation, Verdict) {
	ar := AttesterResult{ID: a.ID, Status: Absent}
	lockPath := filepath.Join(dir, a.ID+".lock")
	bundlePath := lockPath + ".sigstore"
	refuse := func(v Verdict, format string, args ...any) (AttesterResult, *attestation, Verdict) {
		ar.Status = Refused
		ar.Reason = fmt.Sprintf(format, args...)
		return ar, nil, v
	}
	lockThere, err := regularUnder(root, lockPath)
	if err != nil {
		return refuse(Unverifiable, "%v", err)
	}
	bundleThere, err := regularUnder(root, bundlePath)
	if err != nil {
		return refuse(Unverifiable, "%v", err)
	}
	if !lockThere {
		if bundleThere {
			return refuse(Unverifiable, "a signature bundle without its lock")
		}
		return ar, nil, ""
	}
	if !bundleThere {
		return refuse(Unverifiable, "lock %s has no signature bundle beside it (.sigstore)", rel(root, lockPath))
	}
	data, err := infile.ReadAll(lockPath, "corpus lock", maxCorpusLock)
	if err != nil {
		return refuse(Unverifiable, "%v", err)
	}
	// The level is read first: a newer one than warden implements is a
	// format break to report as such, not a corrupt lock.
	var head struct {
		SchemaVersion json.Number `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head); err == nil {
		if n, err := head.SchemaVersion.Int64(); err == nil && n > lock.CurrentSchemaVersion {
			ar.Level = int(n)
			return refuse(SchemaMismatch, "lock is at schema_version %d; warden implements up to %d and cannot rebuild that level's entries", n, lock.CurrentSchemaVersion)
		}
	}
	l, err := lock.Parse(data)
	if err != nil {
		return refuse(Unverifiable, "lock %s: %s", rel(root, lockPath), unquoted(err))
	}
	ar.Level = l.SchemaVersion
	if err := lock.Verify(l); err != nil {
		return refuse(Unverifiable, "lock %s does not reproduce its own digests: %s", rel(root, lockPath), unquoted(err))
	}
	if l.SchemaVersion < 3 {
		return refuse(SchemaMismatch, "lock is at schema_version %d; a live capture can be rebuilt only at levels 3 and 4 (level %d skeletons left in-document $refs unresolved)", l.SchemaVersion, l.SchemaVersion)
	}
	bundle, err := infile.ReadAll(bundlePath, "signature bundle", maxBundle)
	if err != nil {
		return refuse(Unverifiable, "%v", err)
	}
	// The statement is rebuilt from the directory the lock sits in, so a
	// lock and bundle copied under another package do not verify.
	if err := p.opts.Verifier.Verify(bundle, p.coord.String(), l.OverallDigest, a); err != nil {
		return refuse(Unverifiable, "signature of %s does not verify for %s (identity %s, issuer %s): %v", rel(root, lockPath), p.coord, a.Identity, a.Issuer, err)
	}
	ar.SurfaceDigest = SurfaceDigest(l)
	return ar, &attestation{id: a.ID, level: l.SchemaVersion, surface: ar.SurfaceDigest}, ""
}

// Compare compares the observed lock (what warden captured, at its own
// level, 4) with the verified attestations, rebuilding the observed
// entries at each attestation's level.
func (p *Prepared) Compare(observed *lock.Lock) *Result {
	if p.failed != nil {
		r := *p.failed
		return &r
	}
	r := p.result
	r.Attesters = slices.Clone(p.result.Attesters)
	observedAt := map[int]string{}
	byLevel := map[int]map[string]bool{}
	for _, at := range p.attestations {
		d, ok := observedAt[at.level]
		if !ok {
			var err error
			if d, err = LiveSurfaceDigest(observed, at.level); err != nil {
				return failed(SchemaMismatch, r.Coordinate, r.MinAttesters, "attester %s: %v", at.id, err)
			}
			observedAt[at.level] = d
			r.Levels = append(r.Levels, at.level)
		}
		if byLevel[at.level] == nil {
			byLevel[at.level] = map[string]bool{}
		}
		byLevel[at.level][at.surface] = true
		for i := range r.Attesters {
			if r.Attesters[i].ID == at.id {
				r.Attesters[i].Status = Differs
				if at.surface == d {
					r.Attesters[i].Status = Agrees
				}
			}
		}
	}
	decide(&r, byLevel)
	for _, l := range r.Levels {
		r.Observed = append(r.Observed, observedAt[l])
	}
	return &r
}

// inside reports whether path is within dir, after following symbolic
// links (a link into the corpus is inside it).
func inside(path, dir string) bool {
	resolve := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return p
	}
	r, err := filepath.Rel(resolve(dir), resolve(path))
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// regularUnder reports whether path, under root, exists; it must then be
// a regular file reached through directories, not symbolic links (a
// corpus is someone else's tree).
func regularUnder(root, path string) (bool, error) {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return false, err
	}
	cur := root
	parts := strings.Split(r, string(filepath.Separator))
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("corpus %s: %v", r, errors.Unwrap(err))
		}
		last := i == len(parts)-1
		if fi.Mode()&fs.ModeSymlink != 0 {
			return false, fmt.Errorf("corpus path %s is a symbolic link; refused", filepath.ToSlash(filepath.Join(parts[:i+1]...)))
		}
		if last && !fi.Mode().IsRegular() {
			return false, fmt.Errorf("corpus path %s is not a regular file", filepath.ToSlash(r))
		}
		if !last && !fi.IsDir() {
			return false, nil
		}
	}
	return true, nil
}

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return filepath.ToSlash(r)
	}
	return path
}

// unquoted is err's message up to the first quoted value: what a corpus
// lock says (tool names, values) stays out of reports, its JSON path and
// the rule it broke remain.
func unquoted(err error) string {
	msg := err.Error()
	if i := strings.IndexAny(msg, "\"`"); i >= 0 {
		msg = strings.TrimRight(msg[:i], " (:") + " (…)"
	}
	return msg
}
