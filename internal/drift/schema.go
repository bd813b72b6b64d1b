package drift

import (
	"cmp"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
	"github.com/wardenlock/warden/internal/skeleton"
)

// change is one structural fact that differs between two skeletons. Path is
// kept for the human message; the interoperable item has no path field.
type change struct {
	path     string
	class    string
	severity string
	detail   string
}

// Constraint keys the classifier looks at, in the order the reference
// evaluates them (the order matters when one path yields several items of
// the same class).
var (
	markerKeys  = []string{"$ref", "_truncated"}
	raisedKeys  = []string{"maxLength", "maximum"} // relaxed when raised
	loweredKeys = []string{"minLength", "minimum"} // relaxed when lowered
	textKeys    = []string{"pattern", "format"}
)

// diffSkeletons lists the structural changes from base to cur
// (reference-behaviour §4.3), sorted stably by (path, class). Within one path
// and class the emission order is kept: required, type, enum, then the
// constraints in markerKeys, additionalProperties, raisedKeys, loweredKeys,
// textKeys order.
func diffSkeletons(base, cur *skeleton.Skeleton) []change {
	var out []change
	for _, p := range cur.Paths {
		c := cur.Records[p]
		b, ok := base.Records[p]
		if !ok {
			out = append(out, classifyAdded(p, c))
			continue
		}
		out = compareRecords(out, p, b, c)
	}
	for _, p := range base.Paths {
		if _, ok := cur.Records[p]; ok {
			continue
		}
		if base.Records[p].Required {
			out = append(out, change{p, ClassSchemaRequiredRemoved, High, "required property removed"})
		} else {
			out = append(out, change{p, ClassSchemaPropertyRemoved, Medium, "optional property removed"})
		}
	}
	slices.SortStableFunc(out, func(x, y change) int {
		if c := strings.Compare(x.path, y.path); c != 0 {
			return c
		}
		return strings.Compare(x.class, y.class)
	})
	return out
}

// classifyAdded classifies a path that only the current skeleton has.
func classifyAdded(p string, r skeleton.Record) change {
	free := unconstrained(r)
	switch {
	case r.Required && free:
		return change{p, ClassSchemaRequiredUnconstrainedAdded, High, "new required unconstrained"}
	case r.Required:
		return change{p, ClassSchemaRequiredAdded, Medium, "new required constrained"}
	case free:
		return change{p, ClassSchemaUnconstrainedAdded, High, "new optional unconstrained"}
	}
	return change{p, ClassSchemaPropertyAdded, Low, "new optional constrained"}
}

// unconstrained is the reference's notion of a property an attacker can
// stuff anything into: no enum, no pattern, no maxLength, and a type that is
// unrestricted or only string/object. minLength, format and minimum do not
// count as constraints; opaque and truncated leaves are unconstrained.
func unconstrained(r skeleton.Record) bool {
	if pyTruthy(r.Enum) {
		return false
	}
	if !constraint(r.Constraints, "pattern").IsNull() || !constraint(r.Constraints, "maxLength").IsNull() {
		return false
	}
	for _, t := range r.Type {
		if t != "string" && t != "object" {
			return false
		}
	}
	return true
}

// compareRecords appends the changes of one path present on both sides.
func compareRecords(out []change, p string, b, c skeleton.Record) []change {
	switch {
	case b.Required && !c.Required:
		out = append(out, change{p, ClassSchemaConstraintRelaxed, Medium, "required" + Arrow + "optional"})
	case !b.Required && c.Required:
		if unconstrained(c) {
			out = append(out, change{p, ClassSchemaRequiredUnconstrainedAdded, High, "optional" + Arrow + "required unconstrained"})
		} else {
			out = append(out, change{p, ClassSchemaRequiredAdded, Medium, "optional" + Arrow + "required"})
		}
	}
	out = typeChange(out, p, b.Type, c.Type)
	out = enumChange(out, p, b.Enum, c.Enum)
	return constraintChanges(out, p, b.Constraints, c.Constraints)
}

// typeSet returns the sorted, de-duplicated type names; an empty result
// means "any" (JSON null and [] alike). A stored list is normally already
// sorted and unique, and is then used as is.
func typeSet(ts []string) []string {
	if isSortedSet(ts) {
		return ts
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	return slices.Compact(s)
}

func isSortedSet(ts []string) bool {
	for i := 1; i < len(ts); i++ {
		if ts[i-1] >= ts[i] {
			return false
		}
	}
	return true
}

// typeText renders a type set for a detail: Python's repr of the sorted
// list, or "any" for the empty set.
func typeText(ts []string) string {
	if len(ts) == 0 {
		return "any"
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, t := range ts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyfmt.StringRepr(t))
	}
	b.WriteByte(']')
	return b.String()
}

// subset reports whether every member of sorted set a is in sorted set b.
func subset(a, b []string) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return false
		}
	}
	return true
}

// typeChange compares two type sets, treating the empty set as "any": going
// from any to something is a narrowing, and the reverse a broadening.
func typeChange(out []change, p string, bt, ct []string) []change {
	b, c := typeSet(bt), typeSet(ct)
	if slices.Equal(b, c) {
		return out
	}
	var class, sev string
	switch {
	case len(b) == 0:
		class, sev = ClassSchemaTypeNarrowed, Low
	case len(c) == 0:
		class, sev = ClassSchemaTypeBroadened, High
	case subset(b, c):
		class, sev = ClassSchemaTypeBroadened, High
	case subset(c, b):
		class, sev = ClassSchemaTypeNarrowed, Low
	default:
		class, sev = ClassSchemaTypeChanged, Medium
	}
	return append(out, change{p, class, sev, "type " + typeText(b) + Arrow + typeText(c)})
}

// enumItems returns an enum's members. A stored enum is always an array; a
// non-array (only possible in a hand-edited lock that the reader let
// through) is read as a one-member list so the comparison still fails
// closed rather than silently matching.
func enumItems(v *jsonv.Value) []*jsonv.Value {
	if v.Kind == jsonv.Array {
		return v.Items
	}
	return []*jsonv.Value{v}
}

// enumChange compares two enums. Python equality comes first, so [0] and
// [false] are equal and yield nothing; otherwise the member sets are
// compared on their sorted-key json.dumps text, and anything that is not a
// strict subset/superset (reordering, duplicates, overlap) counts as widened,
// the fail-closed reading.
func enumChange(out []change, p string, b, c *jsonv.Value) []change {
	switch {
	case pyfmt.Equal(b, c):
		return out
	case !b.IsNull() && c.IsNull():
		return append(out, change{p, ClassSchemaEnumRemoved, High, "enum removed"})
	case b.IsNull() && !c.IsNull():
		return append(out, change{p, ClassSchemaEnumAdded, Low, "enum added"})
	}
	bi, ci := enumItems(b), enumItems(c)
	bs, cs := dumpsSet(bi), dumpsSet(ci)
	class, sev := ClassSchemaEnumWidened, High
	if len(cs) < len(bs) && setSubset(cs, bs) {
		class, sev = ClassSchemaEnumNarrowed, Low
	}
	detail := "enum " + strconv.Itoa(len(bi)) + Arrow + strconv.Itoa(len(ci)) + " values"
	return append(out, change{p, class, sev, detail})
}

func dumpsSet(items []*jsonv.Value) map[string]struct{} {
	s := make(map[string]struct{}, len(items))
	for _, it := range items {
		s[pyfmt.Dumps(it, true)] = struct{}{}
	}
	return s
}

func setSubset(a, b map[string]struct{}) bool {
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// constraint returns a constraints member, or nil when the constraints
// object or the key is absent.
func constraint(cs *jsonv.Value, key string) *jsonv.Value {
	return cs.Get(key)
}

// constraintChanges compares the constraints maps of one path.
func constraintChanges(out []change, p string, bc, cc *jsonv.Value) []change {
	// Opaque-leaf markers: any difference is a coarse schema-modified, but
	// with both (redacted, cut) literals so a reviewer sees what moved.
	for _, k := range markerKeys {
		b, c := constraint(bc, k), constraint(cc, k)
		if !pyfmt.Equal(b, c) {
			out = append(out, change{p, ClassSchemaModified, High, k + " " + safe(b) + Arrow + safe(c)})
		}
	}

	b, c := additionalProps(bc), additionalProps(cc)
	switch bClosed, cClosed := isFalse(b), isFalse(c); {
	case bClosed && !cClosed:
		out = append(out, change{p, ClassSchemaAdditionalPropsOpened, High, "additionalProperties " + safe(b) + Arrow + safe(c)})
	case !bClosed && cClosed:
		out = append(out, change{p, ClassSchemaConstraintTightened, Low, "additionalProperties " + safe(b) + Arrow + safe(c)})
	}

	for _, k := range raisedKeys {
		out = boundChange(out, p, k, constraint(bc, k), constraint(cc, k), 1)
	}
	for _, k := range loweredKeys {
		out = boundChange(out, p, k, constraint(bc, k), constraint(cc, k), -1)
	}

	for _, k := range textKeys {
		b, c := constraint(bc, k), constraint(cc, k)
		switch {
		case pyfmt.Equal(b, c):
		case !b.IsNull() && c.IsNull():
			out = append(out, change{p, ClassSchemaConstraintRelaxed, Medium, k + " removed"})
		case b.IsNull():
			out = append(out, change{p, ClassSchemaConstraintTightened, Low, k + " added"})
		default:
			// Patterns and formats are never echoed: a pattern can embed
			// the very literal it was written to guard.
			out = append(out, change{p, ClassSchemaConstraintTightened, Low, k + " changed"})
		}
	}
	return out
}

// trueValue stands in for an absent additionalProperties, which JSON Schema
// (and the reference) reads as true.
var trueValue = jsonv.NewBool(true)

func additionalProps(cs *jsonv.Value) *jsonv.Value {
	if !cs.Has("additionalProperties") {
		return trueValue
	}
	return cs.Get("additionalProperties")
}

// isFalse reports whether v is the JSON boolean false itself; only that
// closes additionalProperties (0 and null are open, as Python's "is False").
func isFalse(v *jsonv.Value) bool {
	return v != nil && v.Kind == jsonv.Bool && !v.Bool
}

// boundChange compares one numeric bound. dir is +1 when raising the bound
// relaxes it (maxLength, maximum) and -1 when lowering does.
func boundChange(out []change, p, key string, bv, cv *jsonv.Value, dir int) []change {
	bok, cok := isNumber(bv), isNumber(cv)
	switch {
	case !bok && !cok:
		return out
	case !bok:
		return append(out, change{p, ClassSchemaConstraintTightened, Low, key + " added " + safe(cv)})
	case !cok:
		return append(out, change{p, ClassSchemaConstraintRelaxed, Medium, key + " removed"})
	}
	order := compareNumbers(cv, bv)
	if order == 0 {
		return out
	}
	detail := key + " " + safe(bv) + Arrow + safe(cv)
	if order == dir {
		return append(out, change{p, ClassSchemaConstraintRelaxed, Medium, detail})
	}
	return append(out, change{p, ClassSchemaConstraintTightened, Low, detail})
}

// isNumber reports whether v is a JSON int or float that has a value.
// Booleans, strings and everything else are not numbers here (the reference
// treats them as absent), and neither is a float literal that does not parse
// to a number (never produced by the JSON parser, but a hand-built value
// must not panic).
func isNumber(v *jsonv.Value) bool {
	if v == nil {
		return false
	}
	switch v.Kind {
	case jsonv.Int:
		return true
	case jsonv.Float:
		f, _ := v.Float64()
		return !math.IsNaN(f)
	}
	return false
}

// maxExact is 2^53: every integer up to it in magnitude is a float64.
const maxExact = 1 << 53

// compareNumbers compares two JSON numbers exactly, as Python compares int
// and float values: 5 == 5.0, but 9007199254740993 > 9007199254740992.0.
// Small integers and floats compare natively; anything else goes through
// math/big.
func compareNumbers(a, b *jsonv.Value) int {
	if a.Kind == jsonv.Int && b.Kind == jsonv.Int {
		ai, aerr := strconv.ParseInt(a.Text, 10, 64)
		bi, berr := strconv.ParseInt(b.Text, 10, 64)
		if aerr == nil && berr == nil {
			return cmp.Compare(ai, bi)
		}
	} else if af, bf, ok := exactFloats(a, b); ok {
		return cmp.Compare(af, bf)
	}
	return bigNumber(a).Cmp(bigNumber(b))
}

// exactFloats returns both values as float64 when that loses nothing: floats
// are already float64, and integers of magnitude up to 2^53 convert exactly.
func exactFloats(a, b *jsonv.Value) (float64, float64, bool) {
	af, aok := exactFloat(a)
	bf, bok := exactFloat(b)
	return af, bf, aok && bok
}

func exactFloat(v *jsonv.Value) (float64, bool) {
	if v.Kind == jsonv.Float {
		f, _ := v.Float64()
		return f, true
	}
	i, err := strconv.ParseInt(v.Text, 10, 64)
	if err != nil || i > maxExact || i < -maxExact {
		return 0, false
	}
	return float64(i), true
}

// bigNumber is the exact value of a number accepted by isNumber.
func bigNumber(v *jsonv.Value) *big.Float {
	if v.Kind == jsonv.Int {
		if i, ok := new(big.Int).SetString(v.Text, 10); ok {
			return new(big.Float).SetPrec(0).SetInt(i)
		}
		// An Int literal always parses; stay total anyway.
		f, _ := strconv.ParseFloat(v.Text, 64)
		return new(big.Float).SetFloat64(f)
	}
	f, _ := v.Float64()
	return new(big.Float).SetFloat64(f)
}

// pyTruthy is Python's bool() of a parsed JSON value (nil is None).
func pyTruthy(v *jsonv.Value) bool {
	if v == nil {
		return false
	}
	switch v.Kind {
	case jsonv.Null:
		return false
	case jsonv.Bool:
		return v.Bool
	case jsonv.Int, jsonv.Float:
		f, _ := v.Float64()
		return f != 0
	case jsonv.String:
		return v.Text != ""
	case jsonv.Array:
		return len(v.Items) > 0
	}
	return len(v.Members) > 0
}
