package skeleton

import (
	"errors"
	"fmt"
	"sort"

	"github.com/wardenlock/warden/internal/jsonv"
)

// ErrMalformed is wrapped by every FromValue error.
var ErrMalformed = errors.New("malformed schema skeleton")

// Value returns the skeleton as it is hashed and written into warden.lock:
// {"props": {PATH: {"type", "required", "enum", "constraints"}}} with paths
// in code-point order and record keys in that order (reference-behaviour
// §3.1, §5.2). A nil skeleton is JSON null, the v4 "no output schema" value.
// Enum and constraint values are shared with s, not copied.
func (s *Skeleton) Value() *jsonv.Value {
	if s == nil {
		return jsonv.NewNull()
	}
	// Records is the source of truth; Paths is only a convenience, so the
	// order is recomputed rather than trusted (except in a skeleton from
	// Extract, which is read-only).
	paths, recs, _ := s.orderedRecords()
	props := &jsonv.Value{Kind: jsonv.Object, Members: make([]jsonv.Member, 0, len(paths))}
	sh := newShared()
	for i, p := range paths {
		props.Members = append(props.Members, jsonv.M(p, recs[i].value(sh)))
	}
	return jsonv.NewObject(jsonv.M("props", props))
}

// Value returns the record as {"type", "required", "enum", "constraints"}.
func (r Record) Value() *jsonv.Value { return r.value(newShared()) }

// shared holds the immutable nodes that many records of one skeleton have
// in common — null, true, false and each one-type list — so a lock of
// thousands of tools does not hold a copy per record. Nothing mutates a
// skeleton's JSON once built.
type shared struct {
	null, yes, no *jsonv.Value
	types         map[string]*jsonv.Value
}

func newShared() *shared {
	return &shared{null: jsonv.NewNull(), yes: jsonv.NewBool(true), no: jsonv.NewBool(false), types: map[string]*jsonv.Value{}}
}

func (sh *shared) typeList(t []string) *jsonv.Value {
	// Only one-type lists, by far the most common, are shared: their type
	// is a key that cannot be confused with another list's.
	if len(t) != 1 {
		return jsonv.NewStrings(t)
	}
	key := t[0]
	if v, ok := sh.types[key]; ok {
		return v
	}
	v := jsonv.NewStrings(t)
	sh.types[key] = v
	return v
}

// value builds the record's object in one allocation, reusing sh's nodes.
func (r Record) value(sh *shared) *jsonv.Value {
	b := new(recordBlock)
	typ := sh.null
	if r.Type != nil {
		typ = sh.typeList(r.Type)
	}
	req := sh.no
	if r.Required {
		req = sh.yes
	}
	enum := r.Enum
	if enum == nil {
		enum = sh.null
	}
	cons := r.Constraints
	if cons == nil {
		cons = jsonv.NewObject()
	}
	b.members = [4]jsonv.Member{
		{Key: "type", Value: typ},
		{Key: "required", Value: req},
		{Key: "enum", Value: enum},
		{Key: "constraints", Value: cons},
	}
	b.obj = jsonv.Value{Kind: jsonv.Object, Members: b.members[:]}
	return &b.obj
}

// recordBlock holds one record's object and its member list together.
type recordBlock struct {
	obj     jsonv.Value
	members [4]jsonv.Member
}

// FromValue reads a skeleton stored in a lock (reference-behaviour §5.1). A
// nil or JSON null value (a v1 entry, or no output schema) gives nil and no
// error. Like the reference's model it fills in defaults — a missing "props"
// is {}, a missing "type" or "enum" is null, a missing "required" false, a
// missing "constraints" {} — ignores unknown keys, and lets the last of
// repeated keys win. It refuses what the reference refuses: a non-object
// skeleton, props or record; a "type" that is not null or an array of
// strings; an "enum" that is not null or an array; "constraints" that is not
// an object (null included).
//
// "required" must be a JSON boolean. The reference's lax model would also
// coerce 0/1 and strings such as "yes"; warden refuses those (no writer
// produces them) rather than guess, failing closed.
func FromValue(v *jsonv.Value) (*Skeleton, error) {
	if v.IsNull() {
		return nil, nil
	}
	p := jsonv.Path{}
	if v.Kind != jsonv.Object {
		return nil, malformed(p, v, "an object")
	}
	s := &Skeleton{Records: map[string]Record{}}
	props := last(v, "props")
	if props == nil {
		s.Paths = []string{}
		return s, nil
	}
	pp := p.Key("props")
	if props.Kind != jsonv.Object {
		return nil, malformed(pp, props, "an object")
	}
	lastAt := make(map[string]int, len(props.Members))
	for i, m := range props.Members {
		lastAt[m.Key] = i
	}
	for i, m := range props.Members {
		if lastAt[m.Key] != i {
			continue // json.loads keeps only the last; earlier ones are never validated
		}
		rec, err := recordFrom(m.Value, pp.Key(m.Key))
		if err != nil {
			return nil, err
		}
		s.Records[m.Key] = rec
	}
	s.Paths = make([]string, 0, len(s.Records))
	for k := range s.Records {
		s.Paths = append(s.Paths, k)
	}
	sort.Strings(s.Paths)
	return s, nil
}

// recordFrom reads one stored record.
func recordFrom(v *jsonv.Value, p jsonv.Path) (Record, error) {
	var r Record
	if v == nil || v.Kind != jsonv.Object {
		return r, malformed(p, v, "an object")
	}
	if t := last(v, "type"); !t.IsNull() {
		if t.Kind != jsonv.Array {
			return r, malformed(p.Key("type"), t, "an array of strings or null")
		}
		r.Type = make([]string, len(t.Items))
		for i, it := range t.Items {
			s, ok := it.Str()
			if !ok {
				return r, malformed(p.Key("type").Index(i), it, "a string")
			}
			r.Type[i] = s
		}
	}
	if q := last(v, "required"); q != nil {
		if q.Kind != jsonv.Bool {
			return r, malformed(p.Key("required"), q, "a boolean")
		}
		r.Required = q.Bool
	}
	if e := last(v, "enum"); !e.IsNull() {
		if e.Kind != jsonv.Array {
			return r, malformed(p.Key("enum"), e, "an array or null")
		}
		r.Enum = e
	}
	r.Constraints = jsonv.NewObject()
	if c := last(v, "constraints"); c != nil {
		if c.Kind != jsonv.Object {
			return r, malformed(p.Key("constraints"), c, "an object")
		}
		r.Constraints = c
	}
	return r, nil
}

// last returns the last member of obj named key, or nil when absent.
func last(obj *jsonv.Value, key string) *jsonv.Value {
	for i := len(obj.Members) - 1; i >= 0; i-- {
		if obj.Members[i].Key == key {
			if obj.Members[i].Value == nil {
				return jsonv.NewNull()
			}
			return obj.Members[i].Value
		}
	}
	return nil
}

// malformed reports that the value at p is got where want was expected.
func malformed(p jsonv.Path, got *jsonv.Value, want string) error {
	kind := jsonv.Null
	if got != nil {
		kind = got.Kind
	}
	return fmt.Errorf("%w: %s: got %s, want %s", ErrMalformed, p, kind, want)
}

// sortedKeys returns the record paths sorted in code-point order.
func sortedKeys(records map[string]Record) []string {
	paths := make([]string, 0, len(records))
	for p := range records {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// pathsMatch reports whether paths lists exactly the record keys in order,
// so Value can skip re-sorting them.
func pathsMatch(paths []string, records map[string]Record) bool {
	if len(paths) != len(records) || !sort.StringsAreSorted(paths) {
		return false
	}
	for i, p := range paths {
		if _, ok := records[p]; !ok || (i > 0 && paths[i-1] == p) {
			return false
		}
	}
	return true
}
