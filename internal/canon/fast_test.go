package canon

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/wardenlock/warden/internal/benchdata"
	"github.com/wardenlock/warden/internal/jsonv"
)

// viaJCS is the general float path: the literal's float64 formatted by
// jcs.NumberToJSON.
func viaJCS(t *testing.T, lit string) string {
	t.Helper()
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		t.Fatalf("ParseFloat(%q): %v", lit, err)
	}
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		t.Fatalf("NumberToJSON(%q): %v", lit, err)
	}
	return s
}

func TestPlainDecimal(t *testing.T) {
	tests := []struct {
		lit  string
		want string // "" when the fast path must decline
	}{
		{"1.0", "1"}, {"-1.0", "-1"}, {"0.0", "0"}, {"-0.0", "0"}, {"0.000", "0"},
		{"2.50", "2.5"}, {"101.0", "101"}, {"100.0", "100"}, {"0.5", "0.5"},
		{"-0.25", "-0.25"}, {"3600.0", "3600"}, {"0.000001", "0.000001"},
		{"0.0000015", "0.0000015"}, {"123456789012345.0", "123456789012345"},
		{"0.123456789012345", "0.123456789012345"},
		{"12345678.9012345", "12345678.9012345"},
		{"0.0000001", ""}, {"1234567890123456.0", ""}, {"0.1234567890123456", ""},
		{"1e2", ""}, {"1.5e2", ""}, {"1.5E2", ""}, {"12", ""}, {"-12", ""},
		{".5", ""}, {"5.", ""}, {"-", ""}, {"", ""}, {"1.2.3", ""}, {"--1.0", ""},
	}
	for _, tc := range tests {
		got, ok := appendPlainDecimal(nil, tc.lit)
		if !ok {
			if tc.want != "" {
				t.Errorf("appendPlainDecimal(%q) declined, want %s", tc.lit, tc.want)
			}
			continue
		}
		if tc.want == "" {
			t.Errorf("appendPlainDecimal(%q) = %s, want it to decline", tc.lit, got)
			continue
		}
		if string(got) != tc.want || string(got) != viaJCS(t, tc.lit) {
			t.Errorf("appendPlainDecimal(%q) = %s, want %s (jcs %s)", tc.lit, got, tc.want, viaJCS(t, tc.lit))
		}
	}
}

// TestPlainDecimalMatchesJCS holds the fast path to the general one on
// random plain decimals around its limits: up to 17 digits, up to 8 zeros
// after the point, either sign.
func TestPlainDecimalMatchesJCS(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	taken := 0
	for range n {
		lit := benchdata.PlainDecimal(r, 8)
		got, ok := appendPlainDecimal(nil, lit)
		if !ok {
			continue
		}
		taken++
		if want := viaJCS(t, lit); string(got) != want {
			t.Fatalf("appendPlainDecimal(%q) = %s, jcs %s", lit, got, want)
		}
	}
	if taken < n/4 {
		t.Errorf("the fast path took only %d of %d literals", taken, n)
	}
}

// TestSortedMembersMatchSort holds the encoder's in-order and sorted paths
// to a full stable sort by jsonv.CompareUTF16, on keys mixing ASCII,
// BMP characters on both sides of U+E000, and characters above U+FFFF.
func TestSortedMembersMatchSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "b", "A", "_", "é", "\u2028", "\ue000", "\uffee", "\U0001F600", "\U00010000", "\x7f", "0"}
	for range 20000 {
		// Keys are distinct, as in a parsed object (jcs refuses repeats).
		var ms []jsonv.Member
		seen := map[string]bool{}
		for i := range r.IntN(24) {
			var k strings.Builder
			for range r.IntN(4) {
				k.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			if !seen[k.String()] {
				seen[k.String()] = true
				ms = append(ms, jsonv.M(k.String(), jsonv.NewInt(int64(i))))
			}
		}
		if r.IntN(2) == 0 {
			sortByCompareUTF16(ms)
		}
		want := append([]jsonv.Member(nil), ms...)
		sortByCompareUTF16(want)
		got, err := Canonical(jsonv.NewObject(ms...))
		if err != nil {
			t.Fatal(err)
		}
		exp, err := canonicalViaJCS(jsonv.NewObject(want...))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(exp) {
			t.Fatalf("members %v: got %s, want %s", ms, got, exp)
		}
		for i := 1; i < len(ms); i++ {
			for j := range i {
				a, b := ms[j].Key, ms[i].Key
				if c, w := compareKeys(a, b), jsonv.CompareUTF16(a, b); (c < 0) != (w < 0) || (c > 0) != (w > 0) {
					t.Fatalf("compareKeys(%q, %q) = %d, CompareUTF16 %d", a, b, c, w)
				}
			}
		}
	}
}

// sortByCompareUTF16 is the plain stable sort the encoder stands for.
func sortByCompareUTF16(ms []jsonv.Member) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && jsonv.CompareUTF16(ms[j-1].Key, ms[j].Key) > 0; j-- {
			ms[j-1], ms[j] = ms[j], ms[j-1]
		}
	}
}

// TestKeyOrderMatchesSort holds the encoder's sorted path to a plain
// stable sort by jsonv.CompareUTF16 where its eight-byte key prefixes
// decide least: keys sharing long prefixes, keys ending where another
// has a NUL, non-ASCII bytes inside and past the prefix, and repeated
// keys (possible in a hand-built value), whose members must keep their
// order.
func TestKeyOrderMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	stems := []string{"", "abcdefg", "abcdefgh", "abcdefghij", "properti", "é\ue000ab", "a\x00", "\U0001F600xyzw"}
	alphabet := []string{"a", "b", "\x00", "é", "\ue000", "\U0001F600", "~"}
	for range 20000 {
		var ms []jsonv.Member
		for i := range r.IntN(40) {
			var k strings.Builder
			k.WriteString(stems[r.IntN(len(stems))])
			for range r.IntN(3) {
				k.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			ms = append(ms, jsonv.M(k.String(), jsonv.NewInt(int64(i))))
		}
		want := append([]jsonv.Member(nil), ms...)
		sortByCompareUTF16(want)
		got, err := Canonical(jsonv.NewObject(ms...))
		if err != nil {
			t.Fatal(err)
		}
		// The sorted members are in order, so the encoder writes them
		// as they stand.
		exp, err := Canonical(jsonv.NewObject(want...))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(exp) {
			t.Fatalf("members %v:\ngot  %s\nwant %s", ms, got, exp)
		}
	}
}

// TestKeyQuoting holds the keys the encoder copies unescaped (see
// keyOrder.plain) to jsonv.AppendQuoted and to jcs: keys of every length
// around the one- and two-word checks, with a byte that needs an escape,
// or one that does not, at every place.
func TestKeyQuoting(t *testing.T) {
	bytes := []string{`"`, `\`, "\x00", "\x1f", "\n", " ", "\x7f", "é", "\u2028", "\U0001F600", "~", "!", "#", "[", "]", "a"}
	for n := range 26 {
		for at := range n + 1 {
			for _, b := range bytes {
				key := strings.Repeat("k", at) + b + strings.Repeat("z", max(n-at-1, 0))
				for _, second := range []string{"", "a", "\U0001F600"} {
					v := jsonv.NewObject(jsonv.M(key, jsonv.NewInt(1)))
					if second == key {
						continue
					}
					if second != "" {
						v.Members = append(v.Members, jsonv.M(second, jsonv.NewInt(2)))
					}
					got, err := Canonical(v)
					if err != nil {
						t.Fatal(err)
					}
					want, err := canonicalViaJCS(v)
					if err != nil {
						t.Fatal(err)
					}
					if string(got) != string(want) {
						t.Fatalf("key %q: got %s, want %s", key, got, want)
					}
				}
			}
		}
	}
}

// TestKeyOrderEdges sorts keys whose order the prefixes cannot decide or
// could misjudge: equal first eight bytes, a key that is another's prefix,
// NUL bytes where a shorter key ends, non-ASCII bytes inside the prefix,
// and characters above U+FFFF, which UTF-16 puts before U+E000-U+FFFF
// although their code points are larger.
func TestKeyOrderEdges(t *testing.T) {
	tests := []struct {
		keys []string
		want []string
	}{
		{[]string{"type", "description", "properties", "required"}, []string{"description", "properties", "required", "type"}},
		{[]string{"abcdefghB", "abcdefghA", "abcdefgh"}, []string{"abcdefgh", "abcdefghA", "abcdefghB"}},
		{[]string{"abcdefgh\U0001F600", "abcdefgh\ue000", "abcdefgh\u00e9"}, []string{"abcdefgh\u00e9", "abcdefgh\U0001F600", "abcdefgh\ue000"}},
		{[]string{"\ue000", "\U0001F600", "\uffff", "\U00010000", "z"}, []string{"z", "\U00010000", "\U0001F600", "\ue000", "\uffff"}},
		{[]string{"a\x00", "a", "a\x00\x00", "\x00"}, []string{"\x00", "a", "a\x00", "a\x00\x00"}},
		{[]string{"propertiesB", "propertiesA", "properties", "propertie"}, []string{"propertie", "properties", "propertiesA", "propertiesB"}},
		{[]string{"b\ue000", "b\U0001F600", "a"}, []string{"a", "b\U0001F600", "b\ue000"}},
		{[]string{"\u00e9t\u00e9", "ete", "\u00e9te"}, []string{"ete", "\u00e9te", "\u00e9t\u00e9"}},
	}
	for _, tc := range tests {
		for _, rev := range []bool{false, true} {
			keys := slices.Clone(tc.keys)
			if rev {
				slices.Reverse(keys)
			}
			var ms []jsonv.Member
			for i, k := range keys {
				ms = append(ms, jsonv.M(k, jsonv.NewInt(int64(i))))
			}
			got, err := Canonical(jsonv.NewObject(ms...))
			if err != nil {
				t.Fatal(err)
			}
			w, err := jsonv.Parse(got, jsonv.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var order []string
			for _, m := range w.Members {
				order = append(order, m.Key)
			}
			if !slices.Equal(order, tc.want) {
				t.Errorf("keys %q: order %q, want %q", keys, order, tc.want)
			}
			if want, _ := canonicalViaJCS(jsonv.NewObject(ms...)); string(got) != string(want) {
				t.Errorf("keys %q: got %s, jcs %s", keys, got, want)
			}
		}
	}
}

// TestLargeObjectOrder covers objects past the insertion sort's size, in
// and out of order, with keys that share their first eight bytes.
func TestLargeObjectOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{31, 32, 33, 64, 300} {
		var ms []jsonv.Member
		for i := range n {
			k := "key_" + strconv.Itoa(r.IntN(1000000))
			if i%3 == 0 {
				k = "property_name_" + strconv.Itoa(i)
			}
			if i%7 == 0 {
				k = "\u00e9" + k
			}
			ms = append(ms, jsonv.M(k+"_"+strconv.Itoa(i), jsonv.NewInt(int64(i))))
		}
		for _, sorted := range []bool{false, true} {
			if sorted {
				sortByCompareUTF16(ms)
			}
			got, err := Canonical(jsonv.NewObject(ms...))
			if err != nil {
				t.Fatal(err)
			}
			want, err := canonicalViaJCS(jsonv.NewObject(ms...))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("%d members (sorted %v): got %s, want %s", n, sorted, got, want)
			}
		}
	}
}

// appendPlainDecimalSplit is appendPlainDecimal as it was written on
// jsonv.SplitPlainDecimal, the reference for the one-pass version.
func appendPlainDecimalSplit(dst []byte, lit string) ([]byte, bool) {
	d, ok := jsonv.SplitPlainDecimal(lit)
	switch {
	case !ok:
		return dst, false
	case d.Digits == 0:
		return append(dst, '0'), true
	case d.Digits > 15 || d.Int == "" && d.Lead > 5:
		return dst, false
	}
	if d.Neg {
		dst = append(dst, '-')
	}
	if d.Int == "" {
		dst = append(dst, '0')
	} else {
		dst = append(dst, d.Int...)
	}
	if d.Frac != "" {
		dst = append(dst, '.')
		dst = append(dst, d.Frac...)
	}
	return dst, true
}

// plainDecimalCases are literals at the edges of appendPlainDecimal,
// including some no JSON parser would make a Float of (a value can be
// built by hand).
var plainDecimalCases = []string{
	"1.0", "-1.0", "0.0", "-0.0", "00.00", "-00.0100", "007.500", "101.0", "2.5",
	"0.000001", "0.0000001", "-0.0000010", "0.00000100000", "100000000000000.0",
	"999999999999999.0", "9999999999999999.0", "0.999999999999999", "0.9999999999999999",
	"12345678.90123450", "12345678.901234567", "000000000000000001.0",
	"", "-", ".", "-.", "1.", "-1.", ".5", "-.5", "1..0", "1.0.0", "--1.0", "+1.0",
	"1e2", "1.5e2", "1.0E-2", "12", "-0", "0", "1.0 ", " 1.0", "1.a", "a.1", "1.-1",
	"\u0661.0", "1.\u0661",
}

// TestPlainDecimalMatchesSplit holds appendPlainDecimal to the version
// written on jsonv.SplitPlainDecimal, on edge literals and random ones.
func TestPlainDecimalMatchesSplit(t *testing.T) {
	check := func(lit string) {
		t.Helper()
		got, ok := appendPlainDecimal([]byte("x"), lit)
		want, wok := appendPlainDecimalSplit([]byte("x"), lit)
		if ok != wok || string(got) != string(want) {
			t.Fatalf("appendPlainDecimal(%q) = %q, %v; split %q, %v", lit, got, ok, want, wok)
		}
	}
	for _, lit := range plainDecimalCases {
		check(lit)
	}
	r := rand.New(rand.NewPCG(9, 10))
	for range 100000 {
		check(benchdata.PlainDecimal(r, 8))
	}
	const alphabet = "0000123456789..--e"
	for range 100000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		check(string(b))
	}
}

// FuzzPlainDecimal holds appendPlainDecimal to the version written on
// jsonv.SplitPlainDecimal on any text.
func FuzzPlainDecimal(f *testing.F) {
	for _, lit := range plainDecimalCases {
		f.Add(lit)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		got, ok := appendPlainDecimal(nil, lit)
		want, wok := appendPlainDecimalSplit(nil, lit)
		if ok != wok || string(got) != string(want) {
			t.Fatalf("appendPlainDecimal(%q) = %q, %v; split %q, %v", lit, got, ok, want, wok)
		}
	})
}

// TestInt holds appendInt to the form it had on strings.TrimPrefix and
// strings.TrimLeft, on parsed literals and on texts only a value built by
// hand can have.
func TestInt(t *testing.T) {
	tests := []struct{ lit, want string }{
		{"0", "0"}, {"-0", "0"}, {"1", "1"}, {"-1", "-1"}, {"100", "100"},
		{"9007199254740991", "9007199254740991"}, {"-9007199254740991", "-9007199254740991"},
		{"000", "0"}, {"-000", "0"}, {"", "0"}, {"-", "0"}, {"007", "007"}, {"-007", "-007"},
		{"1e2", "1e2"}, {"0e2", "0e2"}, {"999999999999999", "999999999999999"},
		{"0000000000000000", "0"},
	}
	for _, tc := range tests {
		got, err := appendInt([]byte("x"), tc.lit)
		if err != nil || string(got) != "x"+tc.want {
			t.Errorf("appendInt(%q) = %q, %v; want x%s", tc.lit, got, err, tc.want)
		}
	}
	for _, lit := range []string{"9007199254740992", "-9007199254740992", "12345678901234567890", "1e20000000000000000", "-00000000000000000000x"} {
		if got, err := appendInt(nil, lit); err == nil {
			t.Errorf("appendInt(%q) = %q, want a refusal", lit, got)
		}
	}
}

// TestNumbersMatchJCS holds parsed number literals, integers and floats,
// to jcs.Transform.
func TestNumbersMatchJCS(t *testing.T) {
	lits := append([]string{"-0", "0", "1", "-1", "1e2", "1E2", "-1e2", "1e+2", "1e-2", "0e0", "-0e0", "1.0e2",
		"100", "9007199254740991", "-9007199254740991", "0.1", "101.0", "2.50", "-0.0", "1e21", "1e-7"},
		plainDecimalCases...)
	for _, lit := range lits {
		v, err := jsonv.Parse([]byte(lit), jsonv.Options{})
		if err != nil {
			continue
		}
		got, err := Canonical(v)
		want, werr := canonicalViaJCS(v)
		if (err == nil) != (werr == nil) || string(got) != string(want) {
			t.Errorf("%s: got %s, %v; jcs %s, %v", lit, got, err, want, werr)
		}
	}
}
