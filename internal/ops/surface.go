package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/wardenlock/warden/internal/caps"
	"github.com/wardenlock/warden/internal/findings"
	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/surface"
)

// built is a surface turned into what pin and check need: the lock built
// from it, its static findings and the MCP revision it was captured in.
type built struct {
	lock     *lock.Lock
	findings []lock.Finding
	protocol string
}

// buildCaptured builds the lock and findings of a captured surface, as
// lock.Build and findings.Scan do but with one capability analysis per
// tool for both; a build failure is wrapped with what.
func buildCaptured(s *surface.Surface, what string) (*built, error) {
	b := lock.NewBuilder()
	var sc findings.Scanner
	err := b.SetServer(s.Server)
	for _, t := range s.Tools {
		if err != nil {
			break
		}
		a := caps.Analyze(t.Name, t.InputSchema)
		if err = b.AddAnalyzedTool(t, a); err == nil {
			sc.AnalyzedTool(t, a)
		}
	}
	for _, r := range s.Resources {
		if err != nil {
			break
		}
		if err = b.AddResource(r); err == nil {
			sc.Resource(r)
		}
	}
	for _, p := range s.Prompts {
		if err != nil {
			break
		}
		if err = b.AddPrompt(p); err == nil {
			sc.Prompt(p)
		}
	}
	var l *lock.Lock
	if err == nil {
		l, err = b.Finish()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	sc.Launch(s.Server)
	return &built{lock: l, findings: sc.Findings(), protocol: s.ProtocolVersion}, nil
}

// validateSurface refuses a surface file given together with a server.
func validateSurface(t Target) error {
	if len(t.Argv) > 0 || t.URL != "" {
		return errors.New("give either --surface FILE or a server (-- CMD ARGS... or --url URL), not both: pinning or checking from a surface file launches nothing")
	}
	return nil
}

// readSurface reads the surface file at path ("-": stdin) — the
// conformance corpus's surface shape, naming its server by command and args
// or by url — and builds its lock and findings, launching nothing. The
// file is bounded like a lock (surface.Open) and read one entry at a time;
// each tool's tree is dropped once it is hashed, and a repeated entry
// identity is refused, as in a capture. Cancelling ctx stops the reading.
//
// Tools, which cost nearly all the work (hashing, skeleton, capabilities,
// findings), are built on as many goroutines as the process may run at
// once while the file is still being read; the result and the error
// reported, if any, are those of building them one by one in file order.
func readSurface(ctx context.Context, path string, stdin io.Reader) (*built, error) {
	return readSurfaceOn(ctx, path, stdin, runtime.GOMAXPROCS(0))
}

// readSurfaceOn is readSurface building tools on the given number of
// goroutines.
func readSurfaceOn(ctx context.Context, path string, stdin io.Reader, workers int) (*built, error) {
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	f, err := surface.Open(path, stdin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := lock.NewBuilder()
	var sc findings.Scanner
	tools := newToolPool(b, &sc, workers)
	hdr, err := surface.Decode(jsonv.NewDecoder(f, jsonv.Options{}), surface.Handler{
		Tool: func(t surface.Tool) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return tools.add(t)
		},
		Resource: func(r surface.Resource) error {
			sc.Resource(r)
			return b.AddResource(r)
		},
		Prompt: func(p surface.Prompt) error {
			sc.Prompt(p)
			return b.AddPrompt(p)
		},
	})
	toolErr := tools.wait()
	if cerr := Cancelled(ctx); cerr != nil {
		return nil, cerr
	}
	var pe *jsonv.ParseError
	var le *jsonv.ValueLimitError
	switch {
	case err != nil && (infile.IsInputError(err) || errors.As(err, &pe) || errors.As(err, &le)):
		// Reading failed, or the document is not JSON: that comes first.
	case toolErr != nil:
		// A tool that failed to build was read before anything Decode
		// refused after it (tools are handed out in file order).
		err = toolErr
	}
	if err != nil {
		if infile.IsInputError(err) {
			return nil, err
		}
		return nil, fmt.Errorf("surface file %s: %w", f.Name(), err)
	}
	if hdr.Server.Command == "" && hdr.Server.URL == "" {
		return nil, fmt.Errorf("surface file %s names no server: give its launch as command (and args) or as url, which the lock records and check compares", f.Name())
	}
	if err := b.SetServer(hdr.Server); err != nil {
		return nil, fmt.Errorf("surface file %s: %w", f.Name(), err)
	}
	sc.Launch(hdr.Server)
	l, err := b.Finish()
	if err != nil {
		return nil, fmt.Errorf("surface file %s: %w", f.Name(), err)
	}
	return &built{lock: l, findings: sc.Findings(), protocol: hdr.ProtocolVersion}, nil
}

// errStopped tells Decode to hand out no more tools: one already failed.
var errStopped = errors.New("stopped after an earlier tool failed")

// toolPool builds tools handed to it in file order on n goroutines, each
// with its own Builder and Scanner, joined into the main ones at the end.
// With n == 1 it builds each tool at once, on the caller's goroutine.
type toolPool struct {
	b    *lock.Builder
	sc   *findings.Scanner
	jobs chan toolJob
	wg   sync.WaitGroup
	seq  int
	// failed is set once a tool has failed; firstErr is the failure of the
	// earliest tool in file order, at firstSeq.
	failed   atomic.Bool
	mu       sync.Mutex
	firstSeq int
	firstErr error
	forks    []*lock.Builder
	scans    []*findings.Scanner
}

type toolJob struct {
	seq int
	t   surface.Tool
}

func newToolPool(b *lock.Builder, sc *findings.Scanner, n int) *toolPool {
	p := &toolPool{b: b, sc: sc}
	if n <= 1 {
		return p
	}
	p.jobs = make(chan toolJob, 8*n)
	for i := 0; i < n; i++ {
		fb, fs := b.Fork(), &findings.Scanner{}
		p.forks = append(p.forks, fb)
		p.scans = append(p.scans, fs)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range p.jobs {
				if p.failed.Load() {
					continue // drain
				}
				p.build(fb, fs, j)
			}
		}()
	}
	return p
}

// add builds t, or queues it for a worker.
func (p *toolPool) add(t surface.Tool) error {
	if p.failed.Load() {
		return errStopped
	}
	j := toolJob{seq: p.seq, t: t}
	p.seq++
	if p.jobs == nil {
		p.build(p.b, p.sc, j)
		if p.failed.Load() {
			return errStopped
		}
		return nil
	}
	p.jobs <- j
	return nil
}

func (p *toolPool) build(b *lock.Builder, sc *findings.Scanner, j toolJob) {
	// The capabilities and their findings come from one analysis.
	a := caps.Analyze(j.t.Name, j.t.InputSchema)
	if err := b.AddAnalyzedTool(j.t, a); err != nil {
		p.mu.Lock()
		if p.firstErr == nil || j.seq < p.firstSeq {
			p.firstSeq, p.firstErr = j.seq, err
		}
		p.mu.Unlock()
		p.failed.Store(true)
		return
	}
	sc.AnalyzedTool(j.t, a)
}

// wait finishes the queued tools, joins the workers' entries and findings,
// and returns the failure of the earliest tool that failed, placed as
// Decode places its refusals.
func (p *toolPool) wait() error {
	if p.jobs != nil {
		close(p.jobs)
		p.wg.Wait()
		for i := range p.forks {
			p.b.Join(p.forks[i])
			p.sc.Join(p.scans[i])
		}
	}
	if p.firstErr != nil {
		return fmt.Errorf("surface: tools[%d]: %w", p.firstSeq, p.firstErr)
	}
	return nil
}
