package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
)

// noun names a snapshot in errors ("read surface snapshot PATH: ...").
const noun = "surface snapshot"

// Snapshot is a snapshot as read, not yet verified against its lock.
type Snapshot struct {
	// Surface is the surface the snapshot holds.
	Surface *surface.Surface
	// extra is where the first member no snapshot has was found (""
	// when none was): it commits to nothing, so Verify refuses it.
	extra string
}

// members of the document and of each kind of item: everything else is
// extra. Unlike a surface file, which skips what nobody reads, a snapshot
// must hold only what the lock commits to, or it could show a reviewer
// text no hash covers.
var (
	docKeys      = []string{"command", "args", "url", "protocolVersion", "tools", "resources", "prompts"}
	toolKeys     = []string{"name", "description", "inputSchema", "annotations", "outputSchema"}
	resourceKeys = []string{"uri", "name", "description", "mimeType"}
	promptKeys   = []string{"name", "description", "arguments"}
)

// ReadFile reads the snapshot at path, bounded like a surface file: a
// regular file of at most surface.MaxFileBytes, strict JSON (a repeated
// key is refused), each item member at most surface.MaxMemberValues
// values. A missing file is an error wrapping fs.ErrNotExist. Cancelling
// ctx stops the reading within a chunk.
func ReadFile(ctx context.Context, path string) (*Snapshot, error) {
	f, err := infile.Open(path, noun, surface.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	f.WithContext(ctx)
	s, err := Decode(f)
	if err != nil && !infile.IsInputError(err) {
		return nil, fmt.Errorf("read %s %s: %w", noun, path, err)
	}
	return s, err
}

// Exists reports whether something is at path (a snapshot, or whatever
// stands there: reading it says what).
func Exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// Decode reads a snapshot from r (see ReadFile for the bounds of a file).
func Decode(r io.Reader) (*Snapshot, error) {
	d := jsonv.NewDecoder(r, jsonv.Options{})
	s := &Snapshot{Surface: &surface.Surface{}}
	if kind, ok := d.Next(); !ok || kind != jsonv.Object {
		if err := d.Skip(); err != nil {
			return nil, documentError(err)
		}
		return nil, errors.New("not a snapshot: not a JSON object")
	}
	head := jsonv.NewObject()
	seen := map[string]bool{}
	var refusal error
	err := d.Object(func(key string) error {
		if refusal != nil {
			return d.Skip()
		}
		switch key {
		case "command", "args", "url", "protocolVersion":
			v, err := d.ValueWithin(surface.MaxMemberValues)
			if err != nil {
				return err
			}
			head.Members = append(head.Members, jsonv.M(key, v.Clone()))
			return nil
		case "tools", "resources", "prompts":
			keys := map[string][]string{"tools": toolKeys, "resources": resourceKeys, "prompts": promptKeys}[key]
			var err error
			refusal, err = s.list(d, key, keys, seen)
			return err
		}
		s.noteExtra(jsonv.Path{}, key)
		return d.Skip()
	})
	if err == nil {
		err = d.Finish()
	}
	if err != nil {
		return nil, documentError(err)
	}
	if refusal != nil {
		return nil, refusal
	}
	hdr, err := surface.FromVector(head)
	if err != nil {
		return nil, err
	}
	if hdr.Server.Command == "" && hdr.Server.URL == "" {
		return nil, errors.New("not a snapshot: it names no server (command or url)")
	}
	s.Surface.Server, s.Surface.ProtocolVersion = hdr.Server, hdr.ProtocolVersion
	return s, nil
}

// list reads the list named key, each item an object with only keys
// read (others are noted as extra), and adds its entries to s. A repeated
// identity is refused, as a surface file refuses it.
func (s *Snapshot) list(d *jsonv.Decoder, key string, keys []string, seen map[string]bool) (refusal, err error) {
	if kind, ok := d.Next(); !ok || kind != jsonv.Array {
		if err := d.Skip(); err != nil {
			return nil, err
		}
		return fmt.Errorf("not a snapshot: %s is not an array", key), nil
	}
	err = d.Array(func(i int) error {
		if refusal != nil {
			return d.Skip()
		}
		at := jsonv.Path{}.Key(key).Index(i)
		if kind, ok := d.Next(); !ok || kind != jsonv.Object {
			refusal = fmt.Errorf("not a snapshot: %s is not an object", at)
			return d.Skip()
		}
		obj := jsonv.NewObject()
		err := d.Object(func(k string) error {
			if !slices.Contains(keys, k) {
				s.noteExtra(at, k)
				return d.Skip()
			}
			v, err := d.ValueWithin(surface.MaxMemberValues)
			if err != nil {
				return err
			}
			obj.Members = append(obj.Members, jsonv.M(k, v.Clone()))
			return nil
		})
		if err != nil {
			return err
		}
		refusal = s.add(key, at, obj, seen)
		return nil
	})
	return refusal, err
}

// add adds one item to the surface, refusing a malformed or repeated one.
func (s *Snapshot) add(key string, at jsonv.Path, obj *jsonv.Value, seen map[string]bool) error {
	one := jsonv.NewObject(jsonv.M("command", jsonv.NewString("x")), jsonv.M(key, jsonv.NewArray(obj)))
	item, err := surface.FromVector(one)
	if err != nil {
		return fmt.Errorf("not a snapshot: %s: %w", at, err)
	}
	var id string
	switch key {
	case "tools":
		s.Surface.Tools = append(s.Surface.Tools, item.Tools...)
		id = "tool " + item.Tools[0].Name
	case "resources":
		s.Surface.Resources = append(s.Surface.Resources, item.Resources...)
		id = "resource " + item.Resources[0].URI
	default:
		s.Surface.Prompts = append(s.Surface.Prompts, item.Prompts...)
		id = "prompt " + item.Prompts[0].Name
	}
	if seen[id] {
		return fmt.Errorf("not a snapshot: %s repeats an identity", at)
	}
	seen[id] = true
	return nil
}

// noteExtra records the first member the snapshot should not have.
// The key is the file's text: it is clipped.
func (s *Snapshot) noteExtra(at jsonv.Path, key string) {
	if s.extra != "" {
		return
	}
	if len(key) > 32 {
		cut := 32
		for cut > 0 && !utf8.RuneStart(key[cut]) {
			cut--
		}
		key = key[:cut] + "…"
	}
	s.extra = at.Key(key).String()
}

// documentError marks a JSON-level refusal as such.
func documentError(err error) error {
	var pe *jsonv.ParseError
	var le *jsonv.ValueLimitError
	if errors.As(err, &pe) || errors.As(err, &le) {
		return fmt.Errorf("not a valid snapshot: %w", err)
	}
	return err
}
