package pyfmt

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/wardenlock/warden/internal/benchdata"
)

func TestPlainFloat(t *testing.T) {
	tests := []struct {
		lit  string
		want string // "" when the fast path must decline
	}{
		{"1.0", "1.0"}, {"-1.0", "-1.0"}, {"0.0", "0.0"}, {"-0.0", "-0.0"}, {"-0.000", "-0.0"},
		{"2.50", "2.5"}, {"101.0", "101.0"}, {"100.00", "100.0"}, {"0.5", "0.5"},
		{"-0.25", "-0.25"}, {"0.0001", "0.0001"}, {"0.00015", "0.00015"},
		{"123456789012345.0", "123456789012345.0"}, {"0.123456789012345", "0.123456789012345"},
		{"0.00001", ""}, {"1234567890123456.0", ""}, {"0.1234567890123456", ""},
		{"1e2", ""}, {"1.5e2", ""}, {"12", ""}, {".5", ""}, {"5.", ""}, {"", ""}, {"--1.0", ""},
	}
	for _, tc := range tests {
		got, ok := appendPlainFloat(nil, tc.lit)
		switch {
		case !ok && tc.want != "":
			t.Errorf("appendPlainFloat(%q) declined, want %s", tc.lit, tc.want)
		case ok && tc.want == "":
			t.Errorf("appendPlainFloat(%q) = %s, want it to decline", tc.lit, got)
		case ok && (string(got) != tc.want || string(got) != floatRepr(t, tc.lit)):
			t.Errorf("appendPlainFloat(%q) = %s, want %s (FloatRepr %s)", tc.lit, got, tc.want, floatRepr(t, tc.lit))
		}
	}
}

// TestPlainFloatMatchesRepr holds the fast path to FloatRepr on random
// plain decimals around its limits: up to 17 digits, up to 6 zeros after
// the point, either sign.
func TestPlainFloatMatchesRepr(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	taken := 0
	for range n {
		lit := benchdata.PlainDecimal(r, 6)
		got, ok := appendPlainFloat(nil, lit)
		if !ok {
			continue
		}
		taken++
		if want := floatRepr(t, lit); string(got) != want {
			t.Fatalf("appendPlainFloat(%q) = %s, FloatRepr %s", lit, got, want)
		}
	}
	if taken < n/4 {
		t.Errorf("the fast path took only %d of %d literals", taken, n)
	}
}

// floatRepr is the general path: FloatRepr of the literal's float64.
func floatRepr(t *testing.T, lit string) string {
	t.Helper()
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		t.Fatalf("ParseFloat(%q): %v", lit, err)
	}
	return FloatRepr(f)
}
