package surface

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/jsonv"
)

// MaxFileBytes is the largest surface file warden reads: 256 MiB, the
// lock's own limit (a surface of 10,000 tools with 10-30 property schemas
// and long descriptions is some 40-70 MB). The file is read one entry at a
// time, so memory does not grow with it.
const MaxFileBytes = 256 << 20

// fileNoun names a surface file in errors ("read surface file PATH: ...").
const fileNoun = "surface file"

// Open opens the surface file at path for Decode: a regular file of at most
// MaxFileBytes (a FIFO, device or directory is refused without being
// read), or, for "-", stdin under the same limit.
func Open(path string, stdin io.Reader) (*infile.File, error) {
	if path == "-" {
		if stdin == nil {
			return nil, errors.New("read surface file from standard input: no standard input")
		}
		return infile.Stdin(stdin, fileNoun, MaxFileBytes), nil
	}
	return infile.Open(path, fileNoun, MaxFileBytes)
}

// Handler receives the entries of a surface as Decode reads them. The
// values in an entry point into the decoder's blocks: a handler should
// keep what it needs (strings, hashes), not the trees.
type Handler struct {
	Tool     func(Tool) error
	Resource func(Resource) error
	Prompt   func(Prompt) error
	// RawTool, when set, takes the place of Tool: each tools item that is
	// an object is handed over as its text, cut out without being parsed,
	// for the caller to parse with ParseTool, on any goroutine. The text
	// is the caller's to keep: Decode cuts the next item into the buffer
	// RawTool returns (its contents are dropped; nil makes a new one), so
	// that an item is copied once, out of the reading window. Decode then
	// checks neither the item nor its name for a repeat: the caller must,
	// in file order, to refuse what Decode would. An item longer than
	// MaxRawTool is refused (a caller reads such a file the plain way).
	RawTool func(raw []byte) (next []byte, err error)
	// BeforeTools, when set, is called as the tools list begins with the
	// launch identity as far as the document has given it by then. It is
	// provisional (members after the list may still change it, and Decode
	// returns the one that counts): a caller that writes the lock while
	// reading uses it to write the head before the tools.
	BeforeTools func(provisional Server)
	// MaxItems, when above zero, refuses a tools, resources or prompts
	// list of more items, as a capture's --max-items does; the rest of
	// the document is then checked without being built.
	MaxItems int
}

// The members of each kind of item that FromVector's readers look at. An
// item's other members are checked as JSON and skipped, never built: a
// surface file must not cost more memory for what nobody reads.
var (
	toolKeys     = []string{"name", "description", "inputSchema", "annotations", "outputSchema"}
	resourceKeys = []string{"uri", "name", "description", "mimeType"}
	promptKeys   = []string{"name", "description", "arguments"}
)

// scalarKeys are the members an item must hold as a string (or null):
// tool and prompt names, tool descriptions, resource URIs. One that is a
// container is refused for its kind alone, so it is checked and skipped,
// standing as an empty one.
var scalarKeys = map[string][]string{"tools": {"name", "description"}, "resources": {"uri"}, "prompts": {"name"}}

// MaxMemberValues bounds one member of an item (a tool's inputSchema,
// say), in JSON values: its tree costs some 80 bytes a value, so a member
// of millions of small values would cost forty times its text. Real
// schemas hold hundreds; a capture bounds a whole message to about a
// million. An item is read whole, so this is the memory one item may take.
const MaxMemberValues = 1 << 17

// Header is what a surface document says besides its entries.
type Header struct {
	Server Server
	// ProtocolVersion is the optional protocolVersion ("" when absent).
	ProtocolVersion string
}

// Decode reads a surface document in FromVector's shape from d, one entry
// at a time: each tool, resource and prompt is checked as FromVector checks
// it and handed to h, and its tree is not kept, so a surface of any size
// costs the memory of one entry. The launch identity comes back at the
// end, since a document may give it after the entries.
//
// Unlike FromVector, which takes the corpus's cases as they are, Decode
// refuses an entry identity (tool name, resource URI, prompt name) that
// repeats, as a capture does (SPEC §8.2): a name-keyed comparison would let
// one entry shadow the other. An error from h stops the handing out of
// entries and is returned (after the rest of the document has been read:
// a JSON-level refusal anywhere in the document takes precedence).
func Decode(d *jsonv.Decoder, h Handler) (Header, error) {
	var hdr Header
	if kind, ok := d.Next(); !ok || kind != jsonv.Object {
		_, err := d.Value()
		if err == nil {
			err = d.Finish()
		}
		if err != nil {
			return hdr, documentError(err)
		}
		return hdr, errors.New("surface: not an object")
	}
	var cmd, args, url, proto *jsonv.Value
	var refusal error
	seen := map[string]map[string]struct{}{"tools": {}, "resources": {}, "prompts": {}}
	identity := func(kind, noun, id string) error {
		if _, dup := seen[kind][id]; dup {
			return fmt.Errorf("%s %q appears more than once; a repeated identity would let one entry shadow another", noun, id)
		}
		seen[kind][id] = struct{}{}
		return nil
	}
	err := d.Object(func(key string) error {
		if refusal != nil {
			return d.Skip()
		}
		var err error
		switch key {
		case "command", "args", "url", "protocolVersion":
			v, err := d.Value()
			if err != nil {
				return err
			}
			// Kept to the end: copy it out of the decoder's blocks.
			v = v.Clone()
			switch key {
			case "command":
				cmd = v
			case "args":
				args = v
			case "url":
				url = v
			default:
				proto = v
			}
			return nil
		case "tools":
			if h.BeforeTools != nil {
				if srv, err := serverFrom(cmd, args, url); err == nil {
					h.BeforeTools(srv)
				}
			}
			if h.RawTool != nil {
				refusal, err = rawItems(d, key, h.MaxItems, h.RawTool)
				return err
			}
			refusal, err = decodeItems(d, key, h.MaxItems, toolKeys, func(i int, v *jsonv.Value) error {
				t, err := ToolFromWire(v)
				if err == nil {
					err = identity(key, "tool", t.Name)
				}
				if err == nil && h.Tool != nil {
					err = h.Tool(t)
				}
				return err
			})
		case "resources":
			refusal, err = decodeItems(d, key, h.MaxItems, resourceKeys, func(i int, v *jsonv.Value) error {
				r, err := resourceFrom(v)
				if err == nil {
					err = identity(key, "resource", r.URI)
				}
				if err == nil && h.Resource != nil {
					err = h.Resource(r)
				}
				return err
			})
		case "prompts":
			refusal, err = decodeItems(d, key, h.MaxItems, promptKeys, func(i int, v *jsonv.Value) error {
				p, err := promptFrom(v)
				if err == nil {
					err = identity(key, "prompt", p.Name)
				}
				if err == nil && h.Prompt != nil {
					err = h.Prompt(p)
				}
				return err
			})
		default:
			return d.Skip()
		}
		return err
	})
	if err == nil {
		err = d.Finish()
	}
	if err != nil {
		return hdr, documentError(err)
	}
	if refusal != nil {
		return hdr, refusal
	}
	if hdr.Server, err = serverFrom(cmd, args, url); err != nil {
		return hdr, err
	}
	if hdr.ProtocolVersion, err = protocolFrom(proto); err != nil {
		return hdr, err
	}
	return hdr, nil
}

// decodeItems walks the entry list named key (absent or null: none),
// handing each item, which must be an object, to add, read with only its
// members listed in keys (see item). The first refusal (not an array, not
// an object, more than max items when max > 0, or add's error, prefixed
// with the item's place) is returned as refusal, and the rest of the list
// is checked without being built; err is the decoder's.
func decodeItems(d *jsonv.Decoder, key string, max int, keys []string, add func(i int, v *jsonv.Value) error) (refusal, err error) {
	if kind, ok := d.Next(); !ok || kind != jsonv.Array {
		if ok && kind == jsonv.Object {
			if err := d.Skip(); err != nil {
				return nil, err
			}
			return fmt.Errorf("surface: %s is not an array", key), nil
		}
		v, err := d.Value()
		if err != nil {
			return nil, err
		}
		if v.IsNull() {
			return nil, nil
		}
		return fmt.Errorf("surface: %s is not an array", key), nil
	}
	err = d.Array(func(i int) error {
		if refusal != nil {
			return d.Skip()
		}
		if refusal = tooMany(key, i, max); refusal != nil {
			return d.Skip()
		}
		if kind, ok := d.Next(); !ok || kind != jsonv.Object {
			if err := d.Skip(); err != nil {
				return err
			}
			refusal = fmt.Errorf("surface: %s[%d] is not an object", key, i)
			return nil
		}
		v, err := item(d, keys, scalarKeys[key])
		if err != nil {
			return err
		}
		if err := add(i, v); err != nil {
			refusal = fmt.Errorf("surface: %s[%d]: %w", key, i, err)
		}
		return nil
	})
	return refusal, err
}

// tooMany refuses the item at index i of the list named key when the
// list may hold at most max (max > 0).
func tooMany(key string, i, max int) error {
	if max > 0 && i >= max {
		return fmt.Errorf("surface: more than %d %s (the limit is --max-items)", max, key)
	}
	return nil
}

// item reads the object at the current position with only its members
// listed in keys, each of at most MaxMemberValues values; the others are
// skipped, and so is a container in a member listed in scalars, which
// stands as an empty one of its kind.
func item(d *jsonv.Decoder, keys, scalars []string) (*jsonv.Value, error) {
	obj := &jsonv.Value{Kind: jsonv.Object, Members: make([]jsonv.Member, 0, len(keys))}
	err := d.Object(func(key string) error {
		if !slices.Contains(keys, key) {
			return d.Skip()
		}
		var v *jsonv.Value
		var err error
		switch kind, ok := d.Next(); {
		case ok && kind == jsonv.Array && slices.Contains(scalars, key):
			v, err = jsonv.NewArray(), d.Skip()
		case ok && kind == jsonv.Object && slices.Contains(scalars, key):
			v, err = jsonv.NewObject(), d.Skip()
		default:
			v, err = d.ValueWithin(MaxMemberValues)
		}
		if err != nil {
			return err
		}
		obj.Members = append(obj.Members, jsonv.M(key, v))
		return nil
	})
	return obj, err
}

// rawItems is decodeItems handing each item's text to add, cut out by
// RawContainer, after the same checks that it is an object and within
// max.
func rawItems(d *jsonv.Decoder, key string, max int, add func(raw []byte) ([]byte, error)) (refusal, err error) {
	if kind, ok := d.Next(); !ok || kind != jsonv.Array {
		return decodeItems(d, key, max, nil, nil) // null, or refused: nothing to cut
	}
	var buf []byte
	err = d.Array(func(i int) error {
		if refusal != nil {
			return d.Skip()
		}
		if refusal = tooMany(key, i, max); refusal != nil {
			return d.Skip()
		}
		if kind, ok := d.Next(); !ok || kind != jsonv.Object {
			if err := d.Skip(); err != nil {
				return err
			}
			refusal = fmt.Errorf("surface: %s[%d] is not an object", key, i)
			return nil
		}
		buf, err = d.RawContainer(buf[:0], MaxRawTool)
		if err != nil {
			return err
		}
		next, err := add(buf)
		if err != nil {
			refusal = fmt.Errorf("surface: %s[%d]: %w", key, i, err)
		}
		buf = next
		return nil
	})
	return refusal, err
}

// MaxRawTool bounds the text of one tools item RawTool hands over: real
// tools are kilobytes, and the window that holds an item whole while it
// is cut out must not grow with a file of one enormous tool.
const MaxRawTool = 4 << 20

// toolMaxDepth is the nesting a tools item may have below itself: the
// document's bound less the two levels above it (the document and its
// tools list).
const toolMaxDepth = jsonv.HardMaxDepth - 2

// ParseTool parses a tools item that RawTool handed over and checks it as
// Decode checks a tool, but for repeats of its name: a surface decoded
// with RawTool and its items parsed with ParseTool give Decode's tools, or
// a refusal where Decode refuses (its text may differ).
func ParseTool(raw []byte) (Tool, error) {
	var p ToolParser
	return p.Parse(raw)
}

// ToolParser is ParseTool for many items one after another, reusing its
// buffers from one to the next: the tree of the tool a Parse returns is
// built over the previous one's (jsonv.Parser.ParseOver), so a caller
// must be done with a tool before it parses the next. It is not safe for
// concurrent use.
type ToolParser struct {
	p jsonv.Parser
}

// Parse is ParseTool, over the tool the last call returned.
func (tp *ToolParser) Parse(raw []byte) (Tool, error) {
	tp.p.Options.MaxDepth = toolMaxDepth
	// A tool past the bound of one member may still be read the plain
	// way, which bounds each member (see item): the caller reads it so
	// for the refusal, whatever it is.
	tp.p.Options.MaxValues = MaxMemberValues
	tp.p.RootKeys = toolKeys
	v, err := tp.p.ParseOver(raw)
	if err != nil {
		return Tool{}, err
	}
	return ToolFromWire(v)
}

// documentError marks a JSON-level refusal of the document as such; other
// errors (reading the input) are returned as they are.
func documentError(err error) error {
	var pe *jsonv.ParseError
	var le *jsonv.ValueLimitError
	if errors.As(err, &pe) || errors.As(err, &le) {
		return fmt.Errorf("not a valid surface document: %w", err)
	}
	return err
}
