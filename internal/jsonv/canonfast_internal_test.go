package jsonv

import "testing"

// TestCompareUTF16Bytes holds the byte-slice comparison CanonicalText
// orders keys with to CompareUTF16, over characters from every UTF-8
// length and both sides of U+E000 and U+FFFF.
func TestCompareUTF16Bytes(t *testing.T) {
	keys := []string{"", "a", "ab", "b", "é", "ê", "\u07ff", "\u0800", "中", "\ud7ff", "\ue000", "\uefff", "\uf000", "\uffff",
		"\U00010000", "😀", "\U0010ffff", "a\ue000", "a😀", "a\uffff", "😀a", "\ue000a", "ÿ", "ā"}
	sign := func(n int) int { return min(max(n, -1), 1) }
	for _, a := range keys {
		for _, b := range keys {
			if got, want := sign(compareUTF16Bytes([]byte(a), []byte(b))), sign(CompareUTF16(a, b)); got != want {
				t.Errorf("compareUTF16Bytes(%q, %q) = %d, CompareUTF16 %d", a, b, got, want)
			}
		}
	}
}
