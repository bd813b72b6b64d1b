// Package surface is an MCP server's declared surface as warden captures it:
// the launch identity plus the tools, resources and prompts the server lists.
// Every value that is hashed is kept as the server's raw JSON (a jsonv.Value),
// never re-encoded through typed structs, so numbers, explicit nulls and
// unknown keys reach the digests exactly as the server sent them.
package surface

import (
	"fmt"

	"github.com/wardenlock/warden/internal/jsonv"
)

// Server is the launch identity (SPEC §6): an argv for stdio servers, or a
// URL for HTTP servers. URL non-empty means HTTP; Command and Args are then
// empty.
type Server struct {
	Command string
	Args    []string
	URL     string
}

// Argv returns the launch argv, command first.
func (s Server) Argv() []string {
	return append([]string{s.Command}, s.Args...)
}

// IsHTTP reports whether the server is reached by URL.
func (s Server) IsHTTP() bool { return s.URL != "" }

// Tool is one tools/list item. A nil field means the key was absent.
type Tool struct {
	Name         string
	Description  *jsonv.Value
	InputSchema  *jsonv.Value
	Annotations  *jsonv.Value
	OutputSchema *jsonv.Value
}

// DescriptionText returns the description when it is a string.
func (t Tool) DescriptionText() string {
	s, _ := t.Description.Str()
	return s
}

// Resource is one resources/list item.
type Resource struct {
	URI         string
	Name        *jsonv.Value
	Description *jsonv.Value
	MimeType    *jsonv.Value
}

// Prompt is one prompts/list item. Arguments is the (already normalised, for
// a live capture) arguments array.
type Prompt struct {
	Name        string
	Description *jsonv.Value
	Arguments   *jsonv.Value
}

// Surface is everything one capture observed.
type Surface struct {
	Server Server
	// ProtocolVersion is the protocolVersion the server answered initialize
	// with; it becomes pin.mcp_protocol_version.
	ProtocolVersion string
	Tools           []Tool
	Resources       []Resource
	Prompts         []Prompt
	// AcceptedErrors are the lists whose first page the server answered
	// with an error the capture was told to accept (an empty section), in
	// the order tools, resources, prompts. They are outside every hash.
	AcceptedErrors []AcceptedError
}

// AcceptedError is a list answered with a JSON-RPC error that the capture
// accepted as an empty section.
type AcceptedError struct {
	// List is "tools", "resources" or "prompts".
	List string
	// Code is the JSON-RPC error code the server answered.
	Code int64
}

// FromVector reads the conformance corpus's surface shape:
// {command?, args?, url?, tools, resources, prompts} with MCP wire names,
// plus warden's optional protocolVersion (the revision the surface was
// captured in, recorded as pin.mcp_protocol_version).
func FromVector(v *jsonv.Value) (*Surface, error) {
	if v == nil || v.Kind != jsonv.Object {
		return nil, fmt.Errorf("surface: not an object")
	}
	s := &Surface{}
	srv, err := serverFrom(v.Get("command"), v.Get("args"), v.Get("url"))
	if err != nil {
		return nil, err
	}
	s.Server = srv
	if s.ProtocolVersion, err = protocolFrom(v.Get("protocolVersion")); err != nil {
		return nil, err
	}
	tools, err := items(v, "tools")
	if err != nil {
		return nil, err
	}
	for i, t := range tools {
		tool, err := ToolFromWire(t)
		if err != nil {
			return nil, fmt.Errorf("surface: tools[%d]: %w", i, err)
		}
		s.Tools = append(s.Tools, tool)
	}
	res, err := items(v, "resources")
	if err != nil {
		return nil, err
	}
	for i, r := range res {
		x, err := resourceFrom(r)
		if err != nil {
			return nil, fmt.Errorf("surface: resources[%d]: %w", i, err)
		}
		s.Resources = append(s.Resources, x)
	}
	prompts, err := items(v, "prompts")
	if err != nil {
		return nil, err
	}
	for i, p := range prompts {
		x, err := promptFrom(p)
		if err != nil {
			return nil, fmt.Errorf("surface: prompts[%d]: %w", i, err)
		}
		s.Prompts = append(s.Prompts, x)
	}
	return s, nil
}

// serverFrom reads the launch identity: the url when it is a non-empty
// string, else command and args.
func serverFrom(cmd, args, url *jsonv.Value) (Server, error) {
	if u, ok := url.Str(); ok && u != "" {
		return Server{URL: u}, nil
	}
	var srv Server
	if cmd != nil && cmd.Kind != jsonv.String {
		return Server{}, fmt.Errorf("surface: command is not a string")
	}
	srv.Command, _ = cmd.Str()
	list, err := stringList(args, "args")
	if err != nil {
		return Server{}, err
	}
	srv.Args = list
	return srv, nil
}

// protocolFrom reads the optional protocolVersion.
func protocolFrom(v *jsonv.Value) (string, error) {
	if v.IsNull() {
		return "", nil
	}
	s, ok := v.Str()
	if !ok {
		return "", fmt.Errorf("surface: protocolVersion is not a string")
	}
	return s, nil
}

// resourceFrom reads one resources/list item (an object).
func resourceFrom(r *jsonv.Value) (Resource, error) {
	uri, ok := r.Get("uri").Str()
	if !ok {
		return Resource{}, fmt.Errorf("uri is not a string")
	}
	return Resource{URI: uri, Name: r.Get("name"), Description: r.Get("description"), MimeType: r.Get("mimeType")}, nil
}

// promptFrom reads one prompts/list item (an object).
func promptFrom(p *jsonv.Value) (Prompt, error) {
	name, ok := p.Get("name").Str()
	if !ok {
		return Prompt{}, fmt.Errorf("name is not a string")
	}
	return Prompt{Name: name, Description: p.Get("description"), Arguments: p.Get("arguments")}, nil
}

// ToolFromWire takes a raw tools/list item, keeping its raw values. It refuses
// a tool without a string name and, per SPEC §7.1, annotations or an
// outputSchema that are present, non-null and not objects.
func ToolFromWire(t *jsonv.Value) (Tool, error) {
	if t == nil || t.Kind != jsonv.Object {
		return Tool{}, fmt.Errorf("tool is not an object")
	}
	name, ok := t.Get("name").Str()
	if !ok {
		return Tool{}, fmt.Errorf("tool name is missing or not a string")
	}
	tool := Tool{
		Name:         name,
		Description:  t.Get("description"),
		InputSchema:  t.Get("inputSchema"),
		Annotations:  t.Get("annotations"),
		OutputSchema: t.Get("outputSchema"),
	}
	if d := tool.Description; !d.IsNull() && d.Kind != jsonv.String {
		return Tool{}, fmt.Errorf("tool %q: description is a %s, not a string", name, d.Kind)
	}
	if a := tool.Annotations; !a.IsNull() && a.Kind != jsonv.Object {
		return Tool{}, fmt.Errorf("tool %q: annotations is a %s, not an object", name, a.Kind)
	}
	if o := tool.OutputSchema; !o.IsNull() && o.Kind != jsonv.Object {
		return Tool{}, fmt.Errorf("tool %q: outputSchema is a %s, not an object", name, o.Kind)
	}
	return tool, nil
}

func items(v *jsonv.Value, key string) ([]*jsonv.Value, error) {
	x := v.Get(key)
	if x.IsNull() {
		return nil, nil
	}
	if x.Kind != jsonv.Array {
		return nil, fmt.Errorf("surface: %s is not an array", key)
	}
	for i, it := range x.Items {
		if it.Kind != jsonv.Object {
			return nil, fmt.Errorf("surface: %s[%d] is not an object", key, i)
		}
	}
	return x.Items, nil
}

func stringList(v *jsonv.Value, what string) ([]string, error) {
	if v.IsNull() {
		return []string{}, nil
	}
	if v.Kind != jsonv.Array {
		return nil, fmt.Errorf("surface: %s is not an array", what)
	}
	out := make([]string, 0, len(v.Items))
	for i, it := range v.Items {
		s, ok := it.Str()
		if !ok {
			return nil, fmt.Errorf("surface: %s[%d] is not a string", what, i)
		}
		out = append(out, s)
	}
	return out, nil
}

// Vector returns s in the conformance corpus's surface shape, the shape
// FromVector and Decode read: {command, args} or {url}, protocolVersion
// when known, and the tools, resources and prompts with their MCP wire
// names, each key present exactly when its value was (a JSON null kept as
// null). Values are shared with s, not copied. It lets a server's own tests
// write the surface file that `warden pin --surface` reads.
func (s *Surface) Vector() *jsonv.Value {
	doc := jsonv.NewObject()
	if s.Server.IsHTTP() {
		doc.Set("url", jsonv.NewString(s.Server.URL))
	} else {
		doc.Set("command", jsonv.NewString(s.Server.Command))
		doc.Set("args", jsonv.NewStrings(s.Server.Args))
	}
	if s.ProtocolVersion != "" {
		doc.Set("protocolVersion", jsonv.NewString(s.ProtocolVersion))
	}
	member := func(obj *jsonv.Value, key string, v *jsonv.Value) {
		if v != nil {
			obj.Members = append(obj.Members, jsonv.M(key, v))
		}
	}
	tools := make([]*jsonv.Value, 0, len(s.Tools))
	for _, t := range s.Tools {
		o := jsonv.NewObject(jsonv.M("name", jsonv.NewString(t.Name)))
		member(o, "description", t.Description)
		member(o, "inputSchema", t.InputSchema)
		member(o, "annotations", t.Annotations)
		member(o, "outputSchema", t.OutputSchema)
		tools = append(tools, o)
	}
	resources := make([]*jsonv.Value, 0, len(s.Resources))
	for _, r := range s.Resources {
		o := jsonv.NewObject(jsonv.M("uri", jsonv.NewString(r.URI)))
		member(o, "name", r.Name)
		member(o, "description", r.Description)
		member(o, "mimeType", r.MimeType)
		resources = append(resources, o)
	}
	prompts := make([]*jsonv.Value, 0, len(s.Prompts))
	for _, p := range s.Prompts {
		o := jsonv.NewObject(jsonv.M("name", jsonv.NewString(p.Name)))
		member(o, "description", p.Description)
		member(o, "arguments", p.Arguments)
		prompts = append(prompts, o)
	}
	doc.Set("tools", jsonv.NewArray(tools...))
	doc.Set("resources", jsonv.NewArray(resources...))
	doc.Set("prompts", jsonv.NewArray(prompts...))
	return doc
}
