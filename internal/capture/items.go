package capture

import (
	"fmt"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
)

// itemAt locates a list item for error messages without quoting
// server-provided text at length.
type itemAt struct {
	list  string
	page  int
	index int
}

func (a itemAt) String() string { return fmt.Sprintf("%s[%d]", a.list, a.index) }

// optional checks that member key of obj, when present and not null, has the
// given kind. The reference's SDK validates items against its models; a value
// it would refuse must not be locked here.
func optional(obj *jsonv.Value, key string, kind jsonv.Kind) error {
	v := obj.Get(key)
	if v.IsNull() || v.Kind == kind {
		return nil
	}
	return fmt.Errorf("%s is %s, not %s", key, a(v.Kind), a(kind))
}

// a names a JSON kind with its indefinite article, for error messages.
func a(k jsonv.Kind) string {
	switch k {
	case jsonv.Null:
		return "null"
	case jsonv.Int, jsonv.Array, jsonv.Object:
		return "an " + k.String()
	}
	return "a " + k.String()
}

// toolFromWire validates one tools/list item and keeps its raw values.
// Beyond surface.ToolFromWire it requires an object inputSchema (the MCP
// Tool type requires it, and the reference's SDK refuses a tool without one)
// and checks the types of the top-level keys that are not hashed but that
// the SDK validates.
func toolFromWire(v *jsonv.Value, at itemAt) (surface.Tool, error) {
	t, err := surface.ToolFromWire(v)
	if err != nil {
		return surface.Tool{}, fmt.Errorf("%s: %w", at, err)
	}
	if s := t.InputSchema; s == nil || s.Kind != jsonv.Object {
		return surface.Tool{}, fmt.Errorf("%s (tool %s): inputSchema is missing or not an object", at, quoteName(t.Name))
	}
	for _, c := range []struct {
		key  string
		kind jsonv.Kind
	}{{"title", jsonv.String}, {"icons", jsonv.Array}, {"_meta", jsonv.Object}} {
		if err := optional(v, c.key, c.kind); err != nil {
			return surface.Tool{}, fmt.Errorf("%s (tool %s): %w", at, quoteName(t.Name), err)
		}
	}
	return t, nil
}

// resourceFromWire validates one resources/list item: a non-empty string
// uri, and name, description and mimeType strings when present. The values
// are kept raw.
func resourceFromWire(v *jsonv.Value, at itemAt) (surface.Resource, error) {
	if v.Kind != jsonv.Object {
		return surface.Resource{}, fmt.Errorf("%s: resource is %s, not an object", at, a(v.Kind))
	}
	uri, ok := v.Get("uri").Str()
	if !ok || uri == "" {
		return surface.Resource{}, fmt.Errorf("%s: resource uri is missing, empty or not a string", at)
	}
	if n := v.Get("name"); n != nil && n.Kind != jsonv.String {
		return surface.Resource{}, fmt.Errorf("%s (resource %s): name is %s, not a string", at, quoteName(uri), a(n.Kind))
	}
	for _, key := range []string{"description", "mimeType", "title"} {
		if err := optional(v, key, jsonv.String); err != nil {
			return surface.Resource{}, fmt.Errorf("%s (resource %s): %w", at, quoteName(uri), err)
		}
	}
	return surface.Resource{
		URI:         uri,
		Name:        v.Get("name"),
		Description: v.Get("description"),
		MimeType:    v.Get("mimeType"),
	}, nil
}

// promptFromWire validates one prompts/list item and normalises its
// arguments as the reference does (reference behaviour §1.2).
func promptFromWire(v *jsonv.Value, at itemAt) (surface.Prompt, error) {
	if v.Kind != jsonv.Object {
		return surface.Prompt{}, fmt.Errorf("%s: prompt is %s, not an object", at, a(v.Kind))
	}
	name, ok := v.Get("name").Str()
	if !ok {
		return surface.Prompt{}, fmt.Errorf("%s: prompt name is missing or not a string", at)
	}
	if err := optional(v, "description", jsonv.String); err != nil {
		return surface.Prompt{}, fmt.Errorf("%s (prompt %s): %w", at, quoteName(name), err)
	}
	args, err := normaliseArguments(v.Get("arguments"))
	if err != nil {
		return surface.Prompt{}, fmt.Errorf("%s (prompt %s): %w", at, quoteName(name), err)
	}
	return surface.Prompt{Name: name, Description: v.Get("description"), Arguments: args}, nil
}

// normaliseArguments rebuilds a prompt's arguments the way the reference's
// model dump leaves them: every argument has name, description and required,
// in that order (null when missing), followed by every other key whose value
// is not null, in document order. Absent or null arguments are returned
// unchanged; the lock hashes both as [].
func normaliseArguments(args *jsonv.Value) (*jsonv.Value, error) {
	if args.IsNull() {
		return args, nil
	}
	if args.Kind != jsonv.Array {
		return nil, fmt.Errorf("arguments is %s, not an array", a(args.Kind))
	}
	out := make([]*jsonv.Value, 0, len(args.Items))
	for i, arg := range args.Items {
		if arg.Kind != jsonv.Object {
			return nil, fmt.Errorf("arguments[%d] is %s, not an object", i, a(arg.Kind))
		}
		if _, ok := arg.Get("name").Str(); !ok {
			return nil, fmt.Errorf("arguments[%d]: name is missing or not a string", i)
		}
		if err := optional(arg, "description", jsonv.String); err != nil {
			return nil, fmt.Errorf("arguments[%d]: %w", i, err)
		}
		if err := optional(arg, "required", jsonv.Bool); err != nil {
			return nil, fmt.Errorf("arguments[%d]: %w", i, err)
		}
		members := make([]jsonv.Member, 0, len(arg.Members)+3)
		for _, key := range []string{"name", "description", "required"} {
			val := arg.Get(key)
			if val == nil {
				val = jsonv.NewNull()
			}
			members = append(members, jsonv.M(key, val))
		}
		for _, m := range arg.Members {
			if m.Key == "name" || m.Key == "description" || m.Key == "required" || m.Value.IsNull() {
				continue
			}
			members = append(members, m)
		}
		out = append(out, jsonv.NewObject(members...))
	}
	return jsonv.NewArray(out...), nil
}
