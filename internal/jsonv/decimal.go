package jsonv

import "strings"

// PlainDecimal is a number literal written as a plain decimal
// (-?digits.digits, no exponent) taken apart, for writers that can render
// such a float from its own digits instead of through float64 (canon's
// ECMAScript form, pyfmt's Python repr), each within its own limits.
type PlainDecimal struct {
	Neg bool
	// Int is the integer digits without leading zeros ("" for none), Frac
	// the fraction digits without trailing zeros ("" for none).
	Int, Frac string
	// Lead counts the zeros after the point before the first nonzero
	// digit when Int is "", and Digits the significant digits.
	Lead, Digits int
}

// SplitPlainDecimal takes lit apart, reporting false for any literal that
// is not a plain decimal (an integer, an exponent, a missing digit).
func SplitPlainDecimal(lit string) (PlainDecimal, bool) {
	s, neg := strings.CutPrefix(lit, "-")
	ip, fp, ok := strings.Cut(s, ".")
	if !ok || ip == "" || fp == "" || !allDigits(ip) || !allDigits(fp) {
		return PlainDecimal{}, false
	}
	d := PlainDecimal{Neg: neg, Int: strings.TrimLeft(ip, "0"), Frac: strings.TrimRight(fp, "0")}
	if d.Int == "" {
		sig := strings.TrimLeft(d.Frac, "0")
		d.Lead, d.Digits = len(d.Frac)-len(sig), len(sig)
	} else {
		d.Digits = len(d.Int) + len(d.Frac)
	}
	return d, true
}

// allDigits reports whether s is all ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
