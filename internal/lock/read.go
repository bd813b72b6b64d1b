package lock

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/jsonv"
)

// MaxNoteLength bounds an attestation note, in code points, as the reference does.
const MaxNoteLength = 1000

// MaxFileBytes is the largest lock file warden reads, and writes: 256 MiB. A
// lock stores hashes and schema skeletons, about 10 KB of text for a tool
// with a 10-30 property schema, so a real server's lock (the largest list a
// few hundred items) is a few megabytes, and 256 MiB holds some 25,000 such
// tools. A lock is read one entry at a time and kept in compact form (about
// a third of its text), so reading costs far less memory than the file's
// size. A bigger file is refused before it is read: the lock comes from the
// repository, and a pull request must not be able to make warden read
// without bound.
const MaxFileBytes = 256 << 20

// noun names a lock in the errors of package infile ("read lock PATH: ...").
const noun = "lock"

// ReadFile reads and strictly validates the lock at path. Only a regular
// file of at most MaxFileBytes is read (see ReadBytes), and it is read one
// entry at a time: the parsed tree of one entry is all that is held beyond
// the lock's compact form. Each tool entry's body digest is computed while
// its tree is at hand, so that Verify can check the entry digests without
// parsing the skeletons back.
func ReadFile(path string) (*Lock, error) {
	return ReadFileContext(context.Background(), path)
}

// ReadFileContext is ReadFile that stops reading once ctx is done, within
// a chunk of the file (64 KiB), with an error naming the lock and
// wrapping the context's cause (see infile.File.WithContext).
func ReadFileContext(ctx context.Context, path string) (*Lock, error) {
	f, err := infile.Open(path, noun, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	f.WithContext(ctx)
	l, err := decode(jsonv.NewDecoder(f, jsonv.Options{MaxDepth: canon.MaxDepth}))
	if err != nil {
		if infile.IsInputError(err) {
			return nil, err
		}
		return nil, fmt.Errorf("read lock %s: %w", path, err)
	}
	return l, nil
}

// ReadBytes returns the text of the lock file at path. Only a regular file
// of at most MaxFileBytes is read: a symbolic link is followed, but what it
// leads to must be a regular file too, so a FIFO (which would block), a
// device such as /dev/zero (endless), a directory or a socket is refused
// without being read. Errors name the path and fit on one line.
func ReadBytes(path string) ([]byte, error) {
	return readRegular(path, MaxFileBytes)
}

// readRegular implements ReadBytes with a size limit of max bytes.
func readRegular(path string, max int64) ([]byte, error) {
	return infile.ReadAll(path, noun, max)
}

// limitText renders a size limit: in MiB when it is a whole number of them.
func limitText(max int64) string { return infile.LimitText(max) }

// Parse parses and validates a lock document. JSON-level refusals (BOM,
// invalid UTF-8, duplicate keys, NaN/Infinity, nesting past 512) come from
// jsonv; structural ones name the JSON path of the offending value.
func Parse(data []byte) (*Lock, error) {
	return decode(jsonv.NewBytesDecoder(data, jsonv.Options{MaxDepth: canon.MaxDepth}))
}

// FromValue validates a parsed lock document as Parse does: every SPEC §3
// key present and of the right type, schema_version an integer 1..4, the v4
// tool commitments present at v4, the depth bound. Unknown keys are ignored,
// except in pin where they are kept for rewriting.
func FromValue(doc *jsonv.Value) (*Lock, error) {
	if doc == nil {
		return nil, errAt(jsonv.Path{}, "must be an object, found nothing")
	}
	return decode(jsonv.NewBytesDecoder(doc.AppendCompact(nil), jsonv.Options{MaxDepth: canon.MaxDepth}))
}

// documentError marks a JSON-level refusal as such.
func documentError(err error) error {
	var pe *jsonv.ParseError
	var le *jsonv.ValueLimitError
	if errors.As(err, &pe) || errors.As(err, &le) {
		return fmt.Errorf("not a valid lock document: %w", err)
	}
	return err
}

// topKeys are the required top-level keys (SPEC §3), in the order the
// reference writes them.
var topKeys = [...]string{"schema_version", "warden_version", "server", "tools", "resources", "prompts", "findings", "overall_digest", "pin"}

// lockDecoder reads one lock document member by member. The big arrays are
// walked item by item; every other member is small and read whole. Tool
// entries, which cost most of the work after the parsing (checking, compact
// skeleton text, the body digest), are handed to worker goroutines while
// the document is still being read (see toolWork).
type lockDecoder struct {
	d    *jsonv.Decoder
	r    reader
	l    *Lock
	seen [len(topKeys)]bool
	// seq numbers the units of the document in order (members and array
	// items); errSeq is the unit at which r.err was set, so that it can be
	// ordered against the tools' failures, found elsewhere.
	seq, errSeq int
	// svSeen is set once schema_version has been read; tool entries that
	// come before it (not in a lock warden or the reference wrote) wait,
	// as compact text, until it is known.
	svSeen  bool
	pending []toolJob
	work    *toolWork
	// keptValues counts the values kept as trees (the pin, inspection
	// blocks), charged against the bytes read (see charge).
	keptValues int
	// compact is Transcode's buffer for compact text, reused.
	compact []byte
	// byText is set for a read that cuts each tool entry out as text
	// for the workers (ReadFileIndexed); plain is set when the lock must
	// be read the plain way instead.
	byText bool
	plain  bool
	// deferred, when set, notes the tool entries cut out instead of
	// reading them (ReadFileDeferred).
	deferred *Deferred
}

// noSeq orders a failure after every unit of the document.
const noSeq = math.MaxInt

// decode reads and validates one lock document from d. The first problem
// in document order is reported, but a JSON-level refusal anywhere in the
// document (a duplicate key, a bad literal, trailing data) takes precedence:
// after a structural problem the rest is still read, without being kept.
func decode(d *jsonv.Decoder) (*Lock, error) {
	return decodeOn(d, defaultWorkers())
}

// defaultWorkers is the number of tool workers a read uses: the
// goroutines the process may run at once, but the one reading.
func defaultWorkers() int { return runtime.GOMAXPROCS(0) - 1 }

// decodeOn is decode with the given number of tool workers (none: tools
// are checked as they are read).
func decodeOn(d *jsonv.Decoder, workers int) (*Lock, error) {
	ld := &lockDecoder{d: d, l: &Lock{Findings: []Finding{}}, work: newToolWork(workers)}
	l, err := ld.run()
	ld.work.stop()
	return l, err
}

// unit runs f, one unit of the document, and notes where r.err was set.
func (ld *lockDecoder) unit(f func(seq int)) {
	ld.seq++
	f(ld.seq)
	if ld.r.err != nil && ld.errSeq == 0 {
		ld.errSeq = ld.seq
	}
}

// failed reports whether a refusal has been found, here or by a worker.
func (ld *lockDecoder) failed() bool { return ld.r.err != nil || ld.work.failed.Load() }

func (ld *lockDecoder) run() (*Lock, error) {
	d, r, l := ld.d, &ld.r, ld.l
	root := jsonv.Path{}
	if kind, ok := d.Next(); !ok || kind != jsonv.Object {
		v, err := kindOnly(d)
		if err == nil {
			err = d.Finish()
		}
		if err != nil {
			return nil, documentError(err)
		}
		r.object(v, root)
		return nil, r.err
	}
	err := d.Object(func(key string) error {
		if ld.failed() {
			return d.Skip()
		}
		for i, k := range topKeys {
			if k == key {
				ld.seen[i] = true
			}
		}
		p := root.Key(key)
		switch key {
		case "tools":
			return ld.toolItems(p)
		case "resources":
			return ld.items(p, resourceKeys, func(v *jsonv.Value, ip jsonv.Path, _ int) {
				l.Resources = append(l.Resources, r.resource(v, ip))
			})
		case "prompts":
			return ld.items(p, promptKeys, func(v *jsonv.Value, ip jsonv.Path, _ int) {
				l.Prompts = append(l.Prompts, r.prompt(v, ip))
			})
		case "findings":
			return ld.items(p, findingKeys, func(v *jsonv.Value, ip jsonv.Path, _ int) {
				l.Findings = append(l.Findings, r.finding(v, ip))
			})
		case "schema_version", "warden_version", "overall_digest":
			v, err := kindOnly(d)
			if err != nil {
				return err
			}
			ld.unit(func(int) { ld.member(key, v, nil) })
			return nil
		case "server":
			var args strItems
			v, err := ld.entry(serverKeys, func(obj *jsonv.Value, key string) (bool, error) {
				if key != "args" {
					return false, nil
				}
				return ld.stringList(obj, key, &args, maxArgs)
			})
			if err != nil {
				return err
			}
			ld.unit(func(int) { ld.member(key, v, &args) })
			return nil
		case "pin":
			v, err := ld.kept(p, maxPinValues)
			if err != nil {
				return err
			}
			ld.unit(func(int) { ld.member(key, v, nil) })
			return nil
		}
		// Unknown members are ignored (SPEC §3 lists the keys a reader
		// needs): checked, never built.
		return d.Skip()
	})
	if err == nil {
		err = d.Finish()
	}
	// The workers finish before anything is returned.
	tools, toolErr, toolSeq := ld.work.wait()
	if err != nil {
		return nil, documentError(err)
	}
	// Tools read before schema_version are checked now that it is known,
	// in order, after the others (they all precede it in the document).
	for _, j := range ld.pending {
		if toolErr != nil {
			break
		}
		j.sv = l.SchemaVersion
		tw := newToolWork(0)
		tw.add(j)
		more, e, at := tw.wait()
		tools = append(tools, more...)
		toolErr, toolSeq = e, at
	}
	for i, k := range topKeys {
		if !ld.seen[i] {
			r.fail(root, "missing required key %q", k)
		}
	}
	errSeq := ld.errSeq
	if r.err != nil && errSeq == 0 {
		errSeq = noSeq
	}
	switch {
	case toolErr != nil && (r.err == nil || toolSeq < errSeq):
		return nil, toolErr
	case r.err != nil:
		return nil, r.err
	}
	l.Tools = tools
	if err := acceptedSectionsEmpty(l); err != nil {
		return nil, err
	}
	if l.Tools == nil {
		l.Tools = []Tool{}
	}
	if l.Resources == nil {
		l.Resources = []Resource{}
	}
	if l.Prompts == nil {
		l.Prompts = []Prompt{}
	}
	return l, nil
}

// The bounds on what a lock may make the reader keep. A lock is read one
// entry at a time and held in compact form, but a few members are kept as
// trees, which cost some 80 bytes a JSON value (forty times the text of a
// list of small numbers): their values are counted as they are read, and a
// lock is refused past these bounds, before more is built. No lock warden
// or the reference writes comes near them.
const (
	// maxPinValues bounds the pin (kept whole for rewriting): its known
	// keys, the attestations each rotation adds (six values each) and the
	// keys of other writers (SPEC §10), which it keeps.
	maxPinValues = 1 << 16
	// maxInspectionValues bounds one tool's inspection block (SPEC §11:
	// three keys).
	maxInspectionValues = 1 << 12
	// keptFree and bytesPerKept bound the values kept as trees in all:
	// keptFree of them, and one more for every bytesPerKept bytes read, so
	// that what is kept stays within some ten times the file.
	keptFree     = 1 << 16
	bytesPerKept = 8
	// maxCapabilities bounds one tool's capabilities list, which warden
	// writes from five flags.
	maxCapabilities = 1 << 10
	// maxArgs bounds the launch's arguments, as an operating system
	// bounds a command line (Linux passes at most some 2 MB of them).
	maxArgs = 1 << 16
)

// The members of each kind of entry that the field readers look at; an
// entry's other members are checked as JSON and skipped, never built.
var (
	serverKeys   = []string{"command", "args", "url", "command_digest"}
	toolKeys     = []string{"name", "description_hash", "input_schema_hash", "capabilities", "entry_digest", "inspection", "schema_skeleton", "annotations_hash", "output_schema_hash", "output_schema_skeleton"}
	resourceKeys = []string{"uri", "name", "description_hash", "mime_type", "entry_digest"}
	promptKeys   = []string{"name", "description_hash", "arguments_hash", "entry_digest"}
	findingKeys  = []string{"rule_id", "severity", "target", "message", "snippet"}
)

// kindOnly reads the value at the current position: whole when it is a
// scalar, and a container is checked and skipped, standing as an empty one
// of its kind. It serves where the field readers want a scalar (or an
// object the caller reads otherwise): all they tell of anything else is
// its kind.
func kindOnly(d *jsonv.Decoder) (*jsonv.Value, error) {
	switch kind, ok := d.Next(); {
	case ok && kind == jsonv.Array:
		return jsonv.NewArray(), d.Skip()
	case ok && kind == jsonv.Object:
		return jsonv.NewObject(), d.Skip()
	}
	return d.Value()
}

// entry reads the object at the current position into a tree of its
// members listed in keys, for the field readers, each read by kindOnly
// unless special (when not nil) reads it: special reports whether it did,
// having added what stands for the member to obj. Other members are
// skipped. A value that is not an object is read by kindOnly.
func (ld *lockDecoder) entry(keys []string, special func(obj *jsonv.Value, key string) (bool, error)) (*jsonv.Value, error) {
	d := ld.d
	if kind, ok := d.Next(); !ok || kind != jsonv.Object {
		return kindOnly(d)
	}
	obj := &jsonv.Value{Kind: jsonv.Object, Members: make([]jsonv.Member, 0, len(keys))}
	err := d.Object(func(key string) error {
		if !slices.Contains(keys, key) {
			return d.Skip()
		}
		if special != nil {
			if done, err := special(obj, key); done || err != nil {
				return err
			}
		}
		v, err := kindOnly(d)
		if err != nil {
			return err
		}
		obj.Members = append(obj.Members, jsonv.M(key, v))
		return nil
	})
	return obj, err
}

// strItems is a list of strings read item by item (see stringList),
// without a tree: the strings, and the first item refused.
type strItems struct {
	present bool
	list    []string
	// bad is the first item that is not a string (as kindOnly read it),
	// at index at; over is set instead when the list passed its bound.
	bad  *jsonv.Value
	at   int
	over bool
}

// stringList reads the member key of obj into dst when it is an array,
// item by item, and puts an empty array in its place in obj; it reports
// whether it did. Items past the first refused one, or past max, are
// checked and skipped.
func (ld *lockDecoder) stringList(obj *jsonv.Value, key string, dst *strItems, max int) (bool, error) {
	d := ld.d
	if kind, ok := d.Next(); !ok || kind != jsonv.Array {
		return false, nil
	}
	*dst = strItems{present: true, list: []string{}}
	err := d.Array(func(i int) error {
		if dst.bad != nil || dst.over {
			return d.Skip()
		}
		if i >= max {
			dst.over, dst.at = true, i
			return d.Skip()
		}
		if kind, ok := d.Next(); ok && kind == jsonv.String {
			s, err := d.String()
			dst.list = append(dst.list, s)
			return err
		}
		v, err := kindOnly(d)
		if err != nil {
			return err
		}
		dst.bad, dst.at = v, i
		return nil
	})
	obj.Members = append(obj.Members, jsonv.M(key, jsonv.NewArray()))
	return true, err
}

// kept reads the value at p, the current position, to be kept as a tree:
// an object of at most max values, charged to the values kept in all (see
// keptFree); anything else is read by kindOnly.
func (ld *lockDecoder) kept(p jsonv.Path, max int) (*jsonv.Value, error) {
	d := ld.d
	if kind, ok := d.Next(); !ok || kind != jsonv.Object {
		return kindOnly(d)
	}
	before := d.Values()
	v, err := d.ValueWithin(max)
	if err != nil {
		return nil, err
	}
	ld.keptValues += d.Values() - before
	if ld.keptValues > keptFree+int(d.Offset()/bytesPerKept) {
		return nil, errAt(p, "the lock's pin and inspection blocks hold %d JSON values by here, more than warden keeps for a lock of %d bytes (%d, and one for every %d bytes)", ld.keptValues, d.Offset(), keptFree, bytesPerKept)
	}
	return v, nil
}

// toolItems walks the tools array. An entry is read member by member: its
// skeletons are transcoded (their compact text and the canonical text the
// entry digest covers, in one pass, see jsonv.Decoder.Transcode), its
// capabilities read as a list of strings, its inspection block kept (see
// kept), the rest of its known members read by kindOnly and the others
// skipped, so that no tree is built but of a few scalars; the worker
// checks the entry with the skeletons and capabilities standing in as
// empty containers. Entries read before schema_version wait until it is
// known.
func (ld *lockDecoder) toolItems(p jsonv.Path) error {
	d, r, l := ld.d, &ld.r, ld.l
	if kind, ok := d.Next(); !ok || kind != jsonv.Array {
		v, err := kindOnly(d)
		if err != nil {
			return err
		}
		ld.unit(func(int) { r.fail(p, "must be an array, found %s", v.Kind) })
		return nil
	}
	return d.Array(func(i int) error {
		if ld.failed() {
			return d.Skip()
		}
		if ld.byText {
			return ld.textTool(p, i)
		}
		j := toolJob{p: p.Index(i), sv: l.SchemaVersion}
		v, err := ld.entry(toolKeys, func(obj *jsonv.Value, key string) (bool, error) {
			return ld.toolMember(&j, obj, key)
		})
		if err != nil {
			return err
		}
		j.v = v
		ld.unit(func(seq int) {
			j.seq = seq
			if !ld.svSeen {
				ld.pending = append(ld.pending, j)
				return
			}
			ld.work.add(j)
		})
		return nil
	})
}

// toolMember reads the members of a tool entry that are not read as
// scalars: the skeletons (when objects), capabilities (when an array) and
// the inspection block (when an object).
func (ld *lockDecoder) toolMember(j *toolJob, obj *jsonv.Value, key string) (bool, error) {
	d := ld.d
	var sk *transcoded
	switch key {
	case "schema_skeleton":
		sk = &j.skel
	case "output_schema_skeleton":
		sk = &j.out
	case "capabilities":
		return ld.stringList(obj, key, &j.caps, maxCapabilities)
	case "inspection":
		if kind, ok := d.Next(); !ok || kind != jsonv.Object {
			return false, nil
		}
		v, err := ld.kept(j.p.Key(key), maxInspectionValues)
		if err != nil {
			return true, err
		}
		obj.Members = append(obj.Members, jsonv.M(key, v))
		return true, nil
	default:
		return false, nil
	}
	if kind, ok := d.Next(); !ok || kind != jsonv.Object {
		return false, nil
	}
	// The digest covers the skeleton as an element of the entry. A
	// skeleton as warden and the reference write them is read in a quick
	// pass; anything else is transcoded, with the same refusals.
	// The canonical text goes to a worker, which hashes it and hands its
	// buffer back (see toolWork.buffer).
	buf := ld.work.buffer()
	if ld.work.lazy {
		// The compact text is read again when it is needed (ReadFileLazy).
		k, cok, err := d.CanonicalOnly(buf, 1)
		if err != nil {
			return true, err
		}
		if cok {
			*sk = transcoded{canonical: k, ok: true, present: true, unloaded: true}
			obj.Members = append(obj.Members, jsonv.M(key, jsonv.NewObject()))
			return true, nil
		}
	}
	c, k, cok, err := d.CanonicalText(ld.compact[:0], buf, 1)
	if err == nil && !cok {
		c, k, cok, err = d.Transcode(ld.compact[:0], buf, 1)
	}
	if err != nil {
		return true, err
	}
	// The compact text is kept: copy it out of the buffer, which the next
	// skeleton reuses.
	ld.compact = c
	*sk = transcoded{compact: string(c), canonical: k, ok: cok, present: true}
	obj.Members = append(obj.Members, jsonv.M(key, jsonv.NewObject()))
	return true, nil
}

// transcoded is a skeleton read by Transcode.
type transcoded struct {
	compact   string
	canonical []byte
	ok        bool
	present   bool
	// unloaded is set when only the canonical text was read (compact is
	// then empty; see ReadFileLazy).
	unloaded bool
}

// items walks the array at p, reading each item as an entry with the
// given keys (see entry) and handing it to add with its unit number; a
// member that is not an array is refused.
func (ld *lockDecoder) items(p jsonv.Path, keys []string, add func(v *jsonv.Value, p jsonv.Path, seq int)) error {
	d, r := ld.d, &ld.r
	if kind, ok := d.Next(); !ok || kind != jsonv.Array {
		v, err := kindOnly(d)
		if err != nil {
			return err
		}
		ld.unit(func(int) { r.fail(p, "must be an array, found %s", v.Kind) })
		return nil
	}
	return d.Array(func(i int) error {
		if ld.failed() {
			return d.Skip()
		}
		v, err := ld.entry(keys, nil)
		if err != nil {
			return err
		}
		ld.unit(func(seq int) { add(v, p.Index(i), seq) })
		return nil
	})
}

// member reads one of the small top-level members; args is the server's
// arguments, when it is the server.
func (ld *lockDecoder) member(key string, v *jsonv.Value, args *strItems) {
	r, l := &ld.r, ld.l
	root := jsonv.Path{}
	// The field readers look members up in their object: give them one.
	obj := jsonv.NewObject(jsonv.M(key, v))
	switch key {
	case "schema_version":
		sv, ok := r.integer(v, root.Key(key))
		if ok && (sv < 1 || sv > CurrentSchemaVersion) {
			if sv > CurrentSchemaVersion {
				r.fail(root.Key(key), "schema_version %d is newer than this warden implements (%d); upgrade warden", sv, CurrentSchemaVersion)
			} else {
				r.fail(root.Key(key), "schema_version %d is not a format level", sv)
			}
		}
		l.SchemaVersion = sv
		ld.svSeen = true
	case "warden_version":
		l.WardenVersion = r.str(obj, root, key)
	case "server":
		l.Server = r.server(v, root.Key(key), args)
	case "overall_digest":
		l.OverallDigest = r.str(obj, root, key)
	case "pin":
		// The pin is kept (it is rewritten by approve): copy it out of the
		// decoder's shared blocks.
		l.Pin = r.pin(v.Clone(), root.Key(key))
	}
}

// toolWork checks tool entries and memoises their body digests, on worker
// goroutines when it has any (n > 0), else at once on the caller's. The
// entries come back in the order they were added, with the failure of the
// earliest failing one (its unit number for ordering against the rest).
type toolWork struct {
	jobs   chan toolJob
	wg     sync.WaitGroup
	slots  []*toolSlot
	failed atomic.Bool
	// firstFail is the unit number of the earliest entry found failing
	// so far (0: none). A worker skips only entries after it: one that
	// took an earlier entry off the queue but was slower to check it must
	// still check it, or the failure reported would depend on scheduling.
	firstFail atomic.Int64
	// inline is the state used when there are no workers.
	inline toolWorker
	// buffers holds the buffers of skeletons' canonical texts that were
	// hashed, for the next ones (*[]byte).
	buffers sync.Pool
	// raws holds the buffers of entries' texts that were read, for the
	// next ones (*[]byte); prior is the index entries read by their text
	// are looked up in, and index the one they are noted for (nil: none).
	raws         sync.Pool
	prior, index *RawIndex
	// lazy is set for a read that leaves out the skeletons' compact text
	// (ReadFileLazy).
	lazy bool
}

// rawBuffer returns an empty buffer to cut an entry's text into.
func (w *toolWork) rawBuffer() []byte {
	if b, ok := w.raws.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return nil
}

// releaseRaw hands back the buffer of a job's text, once read.
func (w *toolWork) releaseRaw(j *toolJob) {
	if b := j.raw; cap(b) > 0 {
		w.raws.Put(&b)
	}
	j.raw = nil
}

// buffer returns an empty buffer for a skeleton's canonical text.
func (w *toolWork) buffer() []byte {
	if b, ok := w.buffers.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return nil
}

// release hands back the buffers of a job's canonical texts, once hashed.
func (w *toolWork) release(j *toolJob) {
	for _, b := range [][]byte{j.skel.canonical, j.out.canonical} {
		if cap(b) > 0 {
			w.buffers.Put(&b)
		}
	}
	j.skel.canonical, j.out.canonical = nil, nil
}

// toolJob is one tool entry to check.
type toolJob struct {
	v    *jsonv.Value
	p    jsonv.Path
	sv   int
	seq  int
	slot *toolSlot
	// skel and out are the entry's skeletons when they were transcoded;
	// v then has an empty object in their place. caps is its
	// capabilities when they were read as a list (an empty array in v).
	skel, out transcoded
	caps      strItems
	// raw, when not nil, is the entry's text as it stands in the file (a
	// buffer of toolWork's, see rawBuffer): the worker reads it itself
	// (see toolWorker.readText), and v and the rest are not set yet.
	raw []byte
	// off is where raw starts in the file.
	off int64
}

// toolSlot receives one entry's outcome.
type toolSlot struct {
	t   Tool
	err error
	seq int
	// key, off and n locate the entry's text in the file, for a job
	// read by its text into an index (see RawIndex).
	key uint64
	off int64
	n   int
}

// toolWorker is one goroutine's buffers.
type toolWorker struct {
	r   reader
	h   canon.Hasher
	raw []byte
	// text reads the entries cut out as text (see readText): its
	// decoder, and the lockDecoder state the entry readers use.
	text   jsonv.Parser
	member lockDecoder
	// again is the buffer an entry's text in prior's file is read into.
	again []byte
}

func newToolWork(n int) *toolWork {
	w := &toolWork{}
	if n <= 0 {
		return w
	}
	w.jobs = make(chan toolJob, 64)
	for i := 0; i < n; i++ {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			var tw toolWorker
			for j := range w.jobs {
				if !w.skips(j.seq) {
					tw.do(j, w)
				}
			}
		}()
	}
	return w
}

// add queues (or checks at once) one tool entry.
func (w *toolWork) add(j toolJob) {
	slot := &toolSlot{seq: j.seq}
	w.slots = append(w.slots, slot)
	j.slot = slot
	if w.jobs == nil {
		w.inline.do(j, w)
		return
	}
	w.jobs <- j
}

// wait finishes the queued entries and returns them in order, or the
// earliest failure.
func (w *toolWork) wait() (tools []Tool, err error, seq int) {
	w.stop()
	tools = make([]Tool, 0, len(w.slots))
	for _, s := range w.slots {
		if s.err != nil {
			return nil, s.err, s.seq
		}
		tools = append(tools, s.t)
	}
	return tools, nil, 0
}

// noteFailure records that the entry of unit seq failed.
func (w *toolWork) noteFailure(seq int) {
	w.failed.Store(true)
	for {
		cur := w.firstFail.Load()
		if cur != 0 && cur <= int64(seq) {
			return
		}
		if w.firstFail.CompareAndSwap(cur, int64(seq)) {
			return
		}
	}
}

// skips reports whether the entry of unit seq need not be checked: an
// earlier one has failed already.
func (w *toolWork) skips(seq int) bool {
	cur := w.firstFail.Load()
	return cur != 0 && int64(seq) > cur
}

// stop ends the workers (once).
func (w *toolWork) stop() {
	if w.jobs != nil {
		close(w.jobs)
		w.wg.Wait()
		w.jobs = nil
	}
}

// do checks one tool entry and, while its skeletons' trees are at hand,
// memoises the digest of its body for Verify.
func (tw *toolWorker) do(j toolJob, w *toolWork) {
	if j.raw != nil {
		done, err := tw.readText(&j, w)
		w.releaseRaw(&j)
		if err != nil {
			j.slot.err = err
			w.noteFailure(j.seq)
			return
		}
		if done {
			return
		}
	}
	tw.r.err = nil
	t, skel, out := tw.r.tool(j.v, j.p, j.sv, &j.caps)
	if tw.r.err != nil {
		j.slot.err = tw.r.err
		w.noteFailure(j.seq)
		return
	}
	omit := skel == nil && j.sv < 2
	if !j.skel.present && !j.out.present {
		t.SchemaSkeleton = jsonv.RawOfBuf(skel, &tw.raw)
		t.OutputSchemaSkeleton = jsonv.RawOfBuf(out, &tw.raw)
		// A body that cannot be hashed is not memoised: Verify then meets
		// the same refusal when it recomputes it.
		if d, err := tw.h.Hash(toolObject(t, skel, out, omit)); err == nil {
			t.memo = newToolMemo(t, omit, d)
		}
		j.slot.t = t
		return
	}
	// The skeletons' trees were never built: the stored text is the
	// transcoded compact text, and the digest is written around their
	// canonical text.
	skelText := tw.skeletonText(&j.skel, skel)
	t.SchemaSkeleton = jsonv.CompactRawString(skelText.compact)
	var outText transcoded
	if t.HasV4 {
		// The output skeleton is read only with the v4 commitments.
		outText = tw.skeletonText(&j.out, out)
		t.OutputSchemaSkeleton = jsonv.CompactRawString(outText.compact)
	}
	t.unloaded = skelText.unloaded || outText.unloaded
	if (omit || skelText.ok) && (!t.HasV4 || outText.ok) {
		if d, err := toolDigestFrom(&tw.h, &t, &skelText, &outText, omit); err == nil {
			t.memo = newToolMemo(t, omit, d)
		}
	}
	if t.unloaded && t.memo == nil {
		// Verify could not check it without the text left out: the lock
		// is read the plain way.
		w.release(&j)
		j.slot.err = errPlain
		w.noteFailure(j.seq)
		return
	}
	w.release(&j)
	j.slot.t = t
}

// skeletonText is a skeleton's compact and canonical text: the transcoded
// one, or else that of the tree read (nil: no skeleton, JSON null).
func (tw *toolWorker) skeletonText(tc *transcoded, tree *jsonv.Value) transcoded {
	if tc.present {
		return *tc
	}
	if tree == nil {
		return transcoded{ok: true}
	}
	canonical, err := canon.Canonical(tree)
	return transcoded{compact: string(tree.AppendCompact(nil)), canonical: canonical, ok: err == nil, present: true}
}

// fieldError is a validation refusal at a JSON path.
type fieldError struct {
	path jsonv.Path
	msg  string
}

func (e *fieldError) Error() string { return e.path.String() + ": " + e.msg }

func errAt(p jsonv.Path, format string, args ...any) error {
	return &fieldError{path: p, msg: fmt.Sprintf(format, args...)}
}

// reader validates one object and remembers the first error, so that the
// field-by-field code below reads straight through.
type reader struct {
	err error
}

func (r *reader) fail(p jsonv.Path, format string, args ...any) {
	if r.err == nil {
		r.err = errAt(p, format, args...)
	}
}

func (r *reader) object(v *jsonv.Value, p jsonv.Path) bool {
	if v == nil || v.Kind != jsonv.Object {
		r.fail(p, "must be an object, found %s", kindOf(v))
		return false
	}
	return true
}

func kindOf(v *jsonv.Value) string {
	if v == nil {
		return "nothing"
	}
	return v.Kind.String()
}

// required returns obj[key], failing when absent.
func (r *reader) required(obj *jsonv.Value, p jsonv.Path, key string) *jsonv.Value {
	if !obj.Has(key) {
		r.fail(p, "missing required key %q", key)
		return nil
	}
	return obj.Get(key)
}

func (r *reader) str(obj *jsonv.Value, p jsonv.Path, key string) string {
	v := r.required(obj, p, key)
	if v == nil {
		return ""
	}
	s, ok := v.Str()
	if !ok {
		r.fail(p.Key(key), "must be a string, found %s", v.Kind)
	}
	return s
}

// optStr reads a key that may be absent or null.
func (r *reader) optStr(obj *jsonv.Value, p jsonv.Path, key string) *string {
	v := obj.Get(key)
	if v.IsNull() {
		return nil
	}
	s, ok := v.Str()
	if !ok {
		r.fail(p.Key(key), "must be a string or null, found %s", v.Kind)
		return nil
	}
	return &s
}

// nullableStr reads a key that must be present but may be null.
func (r *reader) nullableStr(obj *jsonv.Value, p jsonv.Path, key string) *string {
	if !obj.Has(key) {
		r.fail(p, "missing required key %q", key)
		return nil
	}
	return r.optStr(obj, p, key)
}

func (r *reader) strList(v *jsonv.Value, p jsonv.Path) []string {
	if v == nil || v.Kind != jsonv.Array {
		r.fail(p, "must be an array of strings, found %s", kindOf(v))
		return nil
	}
	out := make([]string, 0, len(v.Items))
	for i, it := range v.Items {
		s, ok := it.Str()
		if !ok {
			r.fail(p.Index(i), "must be a string, found %s", it.Kind)
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (r *reader) array(obj *jsonv.Value, p jsonv.Path, key string) []*jsonv.Value {
	v := r.required(obj, p, key)
	if v == nil {
		return nil
	}
	if v.Kind != jsonv.Array {
		r.fail(p.Key(key), "must be an array, found %s", v.Kind)
		return nil
	}
	return v.Items
}

// integer reads a JSON integer that fits an int. Strings, floats and booleans
// are refused even where the reference's lax validation would coerce them.
func (r *reader) integer(v *jsonv.Value, p jsonv.Path) (int, bool) {
	if v == nil || v.Kind != jsonv.Int {
		r.fail(p, "must be an integer, found %s", kindOf(v))
		return 0, false
	}
	var n int
	if _, err := fmt.Sscan(v.Text, &n); err != nil || len(v.Text) > 12 {
		r.fail(p, "integer %s out of range", v.Text)
		return 0, false
	}
	return n, true
}

// optObject reads a key that may be absent or null, or else an object.
func (r *reader) optObject(obj *jsonv.Value, p jsonv.Path, key string) *jsonv.Value {
	v := obj.Get(key)
	if v.IsNull() {
		return nil
	}
	if v.Kind != jsonv.Object {
		r.fail(p.Key(key), "must be an object or null, found %s", v.Kind)
		return nil
	}
	return v
}

// strItems checks a list read by stringList and returns its strings.
func (r *reader) strItems(it *strItems, p jsonv.Path, max int) []string {
	switch {
	case it.bad != nil:
		r.fail(p.Index(it.at), "must be a string, found %s", it.bad.Kind)
		return nil
	case it.over:
		r.fail(p, "has more than %d items, more than warden reads", max)
		return nil
	}
	return it.list
}

// server reads the server block; args, when present, is its arguments
// as stringList read them.
func (r *reader) server(v *jsonv.Value, p jsonv.Path, args *strItems) Server {
	var s Server
	if !r.object(v, p) {
		return s
	}
	s.CommandDigest = r.str(v, p, "command_digest")
	if c := v.Get("command"); !c.IsNull() {
		s.Command, _ = c.Str()
		if c.Kind != jsonv.String {
			r.fail(p.Key("command"), "must be a string, found %s", c.Kind)
		}
	}
	s.Args = []string{}
	if a := v.Get("args"); args != nil && args.present && a.Kind == jsonv.Array {
		s.Args = r.strItems(args, p.Key("args"), maxArgs)
	} else if !a.IsNull() {
		s.Args = r.strList(a, p.Key("args"))
	}
	s.URL = r.optStr(v, p, "url")
	return s
}

// tool reads a tool entry; caps, when present, is its capabilities as
// stringList read them.
func (r *reader) tool(v *jsonv.Value, p jsonv.Path, schemaVersion int, caps *strItems) (t Tool, skel, out *jsonv.Value) {
	if !r.object(v, p) {
		return t, nil, nil
	}
	t.Name = r.str(v, p, "name")
	t.DescriptionHash = r.str(v, p, "description_hash")
	t.InputSchemaHash = r.str(v, p, "input_schema_hash")
	if c := r.required(v, p, "capabilities"); c != nil && caps != nil && caps.present && c.Kind == jsonv.Array {
		t.Capabilities = r.strItems(caps, p.Key("capabilities"), maxCapabilities)
	} else if c != nil {
		t.Capabilities = r.strList(c, p.Key("capabilities"))
	}
	t.EntryDigest = r.str(v, p, "entry_digest")
	if in := r.optObject(v, p, "inspection"); in != nil {
		// Kept as a tree: copy it out of the decoder's shared blocks.
		t.Inspection = in.Clone()
	}
	// The caller keeps the skeletons, as compact text.
	skel = r.optObject(v, p, "schema_skeleton")
	hasAny := v.Has("annotations_hash") || v.Has("output_schema_hash") || v.Has("output_schema_skeleton")
	if schemaVersion >= 4 || (hasAny && !v.Get("annotations_hash").IsNull()) {
		// At v4 the commitments are required (SPEC §7.1); below it they are
		// optional, but a half-present set is refused rather than guessed at.
		for _, key := range []string{"annotations_hash", "output_schema_hash"} {
			if x := v.Get(key); x.IsNull() {
				r.fail(p, "missing required v4 commitment %q", key)
			}
		}
		if !v.Has("output_schema_skeleton") {
			r.fail(p, "missing required v4 commitment %q", "output_schema_skeleton")
		}
		t.HasV4 = true
		t.AnnotationsHash = r.str(v, p, "annotations_hash")
		t.OutputSchemaHash = r.str(v, p, "output_schema_hash")
		out = r.optObject(v, p, "output_schema_skeleton")
	}
	return t, skel, out
}

func (r *reader) resource(v *jsonv.Value, p jsonv.Path) Resource {
	var x Resource
	if !r.object(v, p) {
		return x
	}
	x.URI = r.str(v, p, "uri")
	x.Name = r.nullableStr(v, p, "name")
	x.DescriptionHash = r.str(v, p, "description_hash")
	x.MimeType = r.nullableStr(v, p, "mime_type")
	x.EntryDigest = r.str(v, p, "entry_digest")
	return x
}

func (r *reader) prompt(v *jsonv.Value, p jsonv.Path) Prompt {
	var x Prompt
	if !r.object(v, p) {
		return x
	}
	x.Name = r.str(v, p, "name")
	x.DescriptionHash = r.str(v, p, "description_hash")
	x.ArgumentsHash = r.str(v, p, "arguments_hash")
	x.EntryDigest = r.str(v, p, "entry_digest")
	return x
}

func (r *reader) finding(v *jsonv.Value, p jsonv.Path) Finding {
	var f Finding
	if !r.object(v, p) {
		return f
	}
	f.RuleID = r.str(v, p, "rule_id")
	f.Severity = r.str(v, p, "severity")
	f.Target = r.str(v, p, "target")
	f.Message = r.str(v, p, "message")
	f.Snippet = r.str(v, p, "snippet")
	return f
}

// pinKeys are the pin members warden knows, in the order it writes them.
var pinKeys = []string{"created_at", "warden_version", "mcp_protocol_version", "approved", "approver", "approved_at", "approved_digest", "provenance_version", "pinner", "attestations", "rotated_at", "rotation_count", acceptedKey}

func (r *reader) pin(v *jsonv.Value, p jsonv.Path) Pin {
	var x Pin
	if !r.object(v, p) {
		return x
	}
	x.CreatedAt = r.str(v, p, "created_at")
	x.WardenVersion = r.str(v, p, "warden_version")
	x.MCPProtocolVersion = r.str(v, p, "mcp_protocol_version")
	if a := v.Get("approved"); !a.IsNull() {
		if a.Kind != jsonv.Bool {
			r.fail(p.Key("approved"), "must be a boolean, found %s", a.Kind)
		}
		x.Approved = a.Bool
	}
	x.Approver = r.optStr(v, p, "approver")
	x.ApprovedAt = r.optStr(v, p, "approved_at")
	x.ApprovedDigest = r.optStr(v, p, "approved_digest")
	if x.HasProvenanceVersion = v.Has("provenance_version"); x.HasProvenanceVersion {
		if pv := v.Get("provenance_version"); !pv.IsNull() {
			if n, ok := r.integer(pv, p.Key("provenance_version")); ok {
				x.ProvenanceVersion = &n
			}
		}
	}
	if x.HasPinner = v.Has("pinner"); x.HasPinner {
		x.Pinner = r.optObject(v, p, "pinner")
	}
	if x.HasAttestations = v.Has("attestations"); x.HasAttestations {
		if a := v.Get("attestations"); !a.IsNull() {
			if a.Kind != jsonv.Array {
				r.fail(p.Key("attestations"), "must be an array, found %s", a.Kind)
			} else {
				x.Attestations = []*jsonv.Value{}
				for i, at := range a.Items {
					r.attestation(at, p.Key("attestations").Index(i))
					x.Attestations = append(x.Attestations, at)
				}
			}
		}
	}
	if x.HasRotatedAt = v.Has("rotated_at"); x.HasRotatedAt {
		x.RotatedAt = r.optStr(v, p, "rotated_at")
	}
	if x.HasRotationCount = v.Has("rotation_count"); x.HasRotationCount {
		if rc := v.Get("rotation_count"); !rc.IsNull() {
			if n, ok := r.integer(rc, p.Key("rotation_count")); ok {
				x.RotationCount = &n
			}
		}
	}
	if v.Has(acceptedKey) {
		x.AcceptedListErrors = r.acceptedListErrors(v.Get(acceptedKey), p.Key(acceptedKey))
	}
	for _, m := range v.Members {
		if !isPinKey(m.Key) {
			x.Extra = append(x.Extra, m)
		}
	}
	return x
}

func isPinKey(k string) bool {
	for _, pk := range pinKeys {
		if pk == k {
			return true
		}
	}
	return false
}

func (r *reader) attestation(v *jsonv.Value, p jsonv.Path) {
	if !r.object(v, p) {
		return
	}
	r.str(v, p, "actor")
	r.str(v, p, "created_at")
	r.str(v, p, "bound_digest")
	if n := r.optStr(v, p, "note"); n != nil && len([]rune(*n)) > MaxNoteLength {
		r.fail(p.Key("note"), "longer than %d characters", MaxNoteLength)
	}
}
