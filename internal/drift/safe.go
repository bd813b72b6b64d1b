package drift

import (
	"strings"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// Arrow separates the before and after halves of a detail (U+2192). It is
// part of the interoperable detail text.
const Arrow = "→"

// Redacted replaces a detail value that looks like it carries a secret.
const Redacted = "<redacted>"

// secretWords are matched as substrings of the lower-cased Python str() of a
// value. Substring matching is deliberately coarse (so "monkey" matches
// "key"): the lock is committed to source control and a false positive only
// costs detail, while a false negative leaks a credential into CI logs.
var secretWords = []string{"secret", "token", "password", "apikey", "api_key", "key", "bearer"}

// maxSafeRunes bounds how much of a value a detail may echo.
const maxSafeRunes = 40

// ellipsis marks a cut detail value (U+2026).
const ellipsis = "…"

// safe renders a skeleton value for a detail string the way the reference's
// safe() does: redacted when it looks secret, otherwise Python's str() of
// the value (True, 5.0, None, {'type': 'string'}), cut to 40 code points.
// A nil v is Python None (an absent key).
func safe(v *jsonv.Value) string {
	text := "None"
	if v != nil {
		text = pyfmt.Str(v)
	}
	if looksSecret(text) {
		return Redacted
	}
	return cut(text)
}

// looksSecret reports whether the lower-cased text contains a secret word.
// Go's strings.ToLower can only disagree with Python's str.lower() here on
// the two non-ASCII letters whose lower case contains ASCII: U+212A (Kelvin
// sign) becomes "k" in both, and U+0130 becomes "i" in Go but "i" + U+0307 in
// Python. The only secret words with an "i" also contain "key", so the
// verdict is the same either way.
func looksSecret(text string) bool {
	low := strings.ToLower(text)
	for _, w := range secretWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// cut keeps the first 40 code points of text and marks the cut with "…".
// Lengths count code points, as Python's do, never bytes.
func cut(text string) string {
	if utf8.RuneCountInString(text) <= maxSafeRunes {
		return text
	}
	n := 0
	for i := range text {
		if n == maxSafeRunes {
			return text[:i] + ellipsis
		}
		n++
	}
	return text
}
