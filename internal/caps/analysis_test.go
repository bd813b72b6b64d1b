package caps

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

// tableDerive and tableEvidence are Derive and Evidence as first written:
// every segment looked up in every table it could be in. The bit masks of
// analysis must give the same answers.
func tableDerive(name string, schema *jsonv.Value) []string {
	out := []string{}
	for _, f := range Flags {
		if tableHas(name, schema, f) {
			out = append(out, f)
		}
	}
	return out
}

func tableProps(schema *jsonv.Value) [][]string {
	var props [][]string
	for _, k := range PropertyNames(schema) {
		props = append(props, Tokenize(k))
	}
	return props
}

func tableAny(segs []string, set tokenSet) bool {
	return slices.ContainsFunc(segs, func(s string) bool { return set[s] })
}

func tablePropHas(props [][]string, set tokenSet) bool {
	return slices.ContainsFunc(props, func(p []string) bool { return tableAny(p, set) })
}

func tableHas(name string, schema *jsonv.Value, flag string) bool {
	segs, props := Tokenize(name), tableProps(schema)
	switch flag {
	case FSWrite:
		return tablePropHas(props, propTokens[FSWrite]) &&
			(tableAny(segs, nameTokens[FSWrite]) || tablePropHas(props, contentTokens))
	case FSRead:
		return tableAny(segs, nameTokens[FSRead]) && tablePropHas(props, propTokens[FSRead])
	}
	return tableAny(segs, nameTokens[flag]) || tablePropHas(props, propTokens[flag])
}

func tableEvidence(name string, schema *jsonv.Value, flag string) string {
	var matched []string
	for _, s := range Tokenize(name) {
		if nameTokens[flag][s] {
			matched = append(matched, s)
		}
	}
	if len(matched) > 0 {
		return "name token '" + slices.Min(matched) + "'"
	}
	keys := PropertyNames(schema)
	for i, segs := range tableProps(schema) {
		if tableAny(segs, propTokens[flag]) {
			return "property '" + keys[i] + "'"
		}
	}
	return "derived capability '" + flag + "'"
}

func TestAnalysisMatchesTables(t *testing.T) {
	var words []string
	for _, sets := range []map[string]tokenSet{nameTokens, propTokens} {
		for _, set := range sets {
			for w := range set {
				words = append(words, w)
			}
		}
	}
	for w := range contentTokens {
		words = append(words, w)
	}
	slices.Sort(words)
	words = append(words, "x", "readme", "İ", "ΣΑΣ", "shellé", "fooÄbc", strings.Repeat("Path", 20), "")
	seps := []string{"_", "-", ".", " ", "", "\u3000", "\x1c"}
	r := rand.New(rand.NewPCG(7, 8))
	ident := func() string {
		var b strings.Builder
		for n := 1 + r.IntN(3); n > 0; n-- {
			w := words[r.IntN(len(words))]
			switch r.IntN(4) {
			case 0:
				w = strings.ToUpper(w)
			case 1:
				if w != "" {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
			}
			b.WriteString(w)
			b.WriteString(seps[r.IntN(len(seps))])
		}
		return b.String()
	}
	for range 20000 {
		name := ident()
		var members []jsonv.Member
		seen := map[string]bool{}
		for n := r.IntN(4); n > 0; n-- {
			if k := ident(); !seen[k] {
				seen[k] = true
				members = append(members, jsonv.M(k, jsonv.NewObject()))
			}
		}
		schema := jsonv.NewObject(jsonv.M("properties", jsonv.NewObject(members...)))
		desc := fmt.Sprintf("%q %s", name, schema.Compact())
		if got, want := Derive(name, schema), tableDerive(name, schema); !slices.Equal(got, want) {
			t.Fatalf("Derive(%s) = %q, the tables say %q", desc, got, want)
		}
		a := Analyze(name, schema)
		for _, f := range append(slices.Clone(Flags), "no-such-flag") {
			if got, want := a.Evidence(f), tableEvidence(name, schema, f); got != want {
				t.Fatalf("Evidence(%s, %s) = %q, the tables say %q", desc, f, got, want)
			}
		}
	}
}

// TestTokenFilter: the filter in front of tokenBits lets every table
// segment through, so lookupBits is tokenBits.
func TestTokenFilter(t *testing.T) {
	for w, bits := range tokenBits {
		if got := lookupBits(w); got != bits {
			t.Errorf("lookupBits(%q) = %b, want %b", w, got, bits)
		}
		if got := lookupBitsBytes([]byte(w)); got != bits {
			t.Errorf("lookupBitsBytes(%q) = %b, want %b", w, got, bits)
		}
	}
	for _, w := range []string{"", "x", "paths", "flag", "14", "shells", "é"} {
		if lookupBits(w) != tokenBits[w] || lookupBitsBytes([]byte(w)) != tokenBits[w] {
			t.Errorf("lookupBits(%q) differs from tokenBits", w)
		}
	}
}
