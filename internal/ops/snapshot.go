package ops

import (
	"context"
	"errors"
	"fmt"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/mask"
	"github.com/wardenlock/warden/internal/snapshot"
	"github.com/wardenlock/warden/internal/surface"
)

// readSnapshot reads the surface snapshot beside the lock at lockPath and
// verifies it against l, the lock read from there: the surface it holds,
// nil when there is no snapshot (a lock pinned before snapshots, or with
// --no-snapshot, works as before), or the refusal of one that cannot be
// read or does not match (a *snapshot.MismatchError naming both files).
func readSnapshot(ctx context.Context, lockPath string, l *lock.Lock) (*surface.Surface, error) {
	p := startSnapshot(ctx, lockPath)
	defer p.close()
	return p.verify(l)
}

// pendingSnapshot is a snapshot being read on its own goroutine, while
// the lock is: reading either is mostly one core's decoding.
type pendingSnapshot struct {
	path, lockPath string
	ctx            context.Context
	stop           context.CancelFunc
	done           chan struct{} // closed when s and err are set
	s              *snapshot.Snapshot
	err            error
}

// startSnapshot starts reading the snapshot beside the lock at lockPath;
// there being none is known at once. close must be called.
func startSnapshot(ctx context.Context, lockPath string) *pendingSnapshot {
	p := &pendingSnapshot{path: snapshot.Path(lockPath), lockPath: lockPath, ctx: ctx}
	if !snapshot.Exists(p.path) {
		return p
	}
	var sctx context.Context
	sctx, p.stop = context.WithCancel(ctx)
	p.done = make(chan struct{})
	go func() {
		defer close(p.done)
		p.s, p.err = snapshot.ReadFile(sctx, p.path)
	}()
	return p
}

// present reports whether there is a snapshot to verify.
func (p *pendingSnapshot) present() bool { return p.done != nil }

// verify waits for the snapshot and verifies it against l (see
// readSnapshot).
func (p *pendingSnapshot) verify(l *lock.Lock) (*surface.Surface, error) {
	if p.done == nil {
		return nil, nil
	}
	<-p.done
	if err := Cancelled(p.ctx); err != nil {
		return nil, err
	}
	if p.err != nil {
		return nil, p.err
	}
	if err := snapshot.Verify(p.s, l); err != nil {
		var me *snapshot.MismatchError
		if errors.As(err, &me) {
			me.Snapshot, me.Lock = p.path, p.lockPath
		}
		return nil, err
	}
	return p.s.Surface, nil
}

// close stops the reading, if it is still going, and waits for it: it
// never outlives the operation.
func (p *pendingSnapshot) close() {
	if p.done == nil {
		return
	}
	p.stop()
	<-p.done
}

// drifted reads the surface file at path again, keeping the tools that
// are new in cur or whose entry digest differs from base's, and every
// resource and prompt: the current side of what drifted, for a check that
// streamed the file and kept none of it.
func drifted(ctx context.Context, path string, maxItems int, base, cur *lock.Lock) (*surface.Surface, error) {
	was := make(map[string]string, len(base.Tools))
	for _, t := range base.Tools {
		was[t.Name] = t.EntryDigest
	}
	keep := map[string]bool{}
	for _, t := range cur.Tools {
		if d, ok := was[t.Name]; !ok || d != t.EntryDigest {
			keep[t.Name] = true
		}
	}
	return readWhole(ctx, path, maxItems, func(name string) bool { return keep[name] })
}

// readWhole reads the surface file at path into a surface, keeping the
// tools tool says to keep (all when tool is nil).
func readWhole(ctx context.Context, path string, maxItems int, tool func(name string) bool) (*surface.Surface, error) {
	if tool != nil {
		if s, err := readSome(ctx, path, maxItems, tool); err == nil || Cancelled(ctx) != nil {
			return s, err
		}
		// Refused (an item too long to cut out, say): read the plain way,
		// for the refusal.
	}
	return readPlain(ctx, path, maxItems, tool)
}

// readSome is readWhole keeping a few tools: each is cut out unparsed
// and only its name is built, and a tool is parsed whole only when it is
// kept. The file was read and checked once already.
func readSome(ctx context.Context, path string, maxItems int, tool func(name string) bool) (*surface.Surface, error) {
	f, maxItems, err := openSurface(ctx, path, nil, maxItems)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &surface.Surface{}
	names := jsonv.Parser{RootKeys: []string{"name"}}
	hdr, err := surface.Decode(jsonv.NewDecoder(f, jsonv.Options{}), surface.Handler{
		MaxItems: maxItems,
		RawTool: func(raw []byte) ([]byte, error) {
			v, err := names.ParseOver(raw)
			if err != nil {
				return nil, err
			}
			name, ok := v.Get("name").Str()
			if !ok || !tool(name) {
				return raw, nil // the buffer is free again
			}
			t, err := surface.ParseTool(raw)
			if err != nil {
				return nil, err
			}
			s.Tools = append(s.Tools, t)
			return nil, nil
		},
		Resource: func(r surface.Resource) error {
			r.Name, r.Description, r.MimeType = r.Name.Clone(), r.Description.Clone(), r.MimeType.Clone()
			s.Resources = append(s.Resources, r)
			return nil
		},
		Prompt: func(p surface.Prompt) error {
			p.Description, p.Arguments = p.Description.Clone(), p.Arguments.Clone()
			s.Prompts = append(s.Prompts, p)
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	s.Server, s.ProtocolVersion = hdr.Server, hdr.ProtocolVersion
	return s, nil
}

// readPlain is readWhole reading every tool whole.
func readPlain(ctx context.Context, path string, maxItems int, tool func(name string) bool) (*surface.Surface, error) {
	f, maxItems, err := openSurface(ctx, path, nil, maxItems)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &surface.Surface{}
	hdr, err := surface.Decode(jsonv.NewDecoder(f, jsonv.Options{}), surface.Handler{
		MaxItems: maxItems,
		Tool: func(t surface.Tool) error {
			if tool == nil || tool(t.Name) {
				// The values point into the decoder's blocks.
				t.Description, t.InputSchema = t.Description.Clone(), t.InputSchema.Clone()
				t.Annotations, t.OutputSchema = t.Annotations.Clone(), t.OutputSchema.Clone()
				s.Tools = append(s.Tools, t)
			}
			return nil
		},
		Resource: func(r surface.Resource) error {
			r.Name, r.Description, r.MimeType = r.Name.Clone(), r.Description.Clone(), r.MimeType.Clone()
			s.Resources = append(s.Resources, r)
			return nil
		},
		Prompt: func(p surface.Prompt) error {
			p.Description, p.Arguments = p.Description.Clone(), p.Arguments.Clone()
			s.Prompts = append(s.Prompts, p)
			return nil
		},
	})
	if cerr := Cancelled(ctx); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, fmt.Errorf("surface file %s: %w", f.Name(), err)
	}
	s.Server, s.ProtocolVersion = hdr.Server, hdr.ProtocolVersion
	return s, nil
}

// SnapshotOptions configure WriteCandidateSnapshot.
type SnapshotOptions struct {
	// AllowSecret writes the snapshot even when the secret screen finds
	// a secret in it.
	AllowSecret bool
	// Handed are the values handed to the server (see PinOptions.Handed).
	Handed *mask.Set
}

// WriteCandidateSnapshot writes, beside the candidate lock at lockPath
// (the lock Candidate returned for res, written there), the snapshot of
// the surface res checked, screened for secrets as a pin screens its own,
// and returns its path. A check of a surface file, which keeps only what
// drifted, reads the file again; one of standard input has no snapshot to
// give.
func WriteCandidateSnapshot(ctx context.Context, res *CheckResult, lockPath string, o SnapshotOptions) (string, error) {
	s := res.CurrentSurface
	if res.CurrentSurfacePartial {
		if res.surfaceFile == "" {
			return "", errors.New("the surface was read from standard input, which cannot be read again")
		}
		var err error
		if s, err = readWhole(ctx, res.surfaceFile, 0, nil); err != nil {
			return "", err
		}
	}
	if s == nil {
		return "", errors.New("the check captured nothing")
	}
	parts := snapshot.NewParts(s)
	if !o.AllowSecret {
		var handed func(string) bool
		if o.Handed.Len() > 0 {
			handed = o.Handed.Contains
		}
		if err := parts.Screen(handed); err != nil {
			return "", err
		}
	}
	path := snapshot.Path(lockPath)
	if err := Cancelled(ctx); err != nil {
		return "", err
	}
	if err := lock.WriteAtomic(path, parts.Bytes()); err != nil {
		return "", err
	}
	return path, nil
}
