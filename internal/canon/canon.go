// Package canon is the lock format's canonical form and hash (SPEC §4, §5):
// RFC 8785 JSON Canonicalization via github.com/gowebpki/jcs, the normative
// nesting bound of 512, the safe-integer domain, and
// hash(v) = "sha256:" + lowercase hex SHA-256 of the canonical bytes.
package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/gowebpki/jcs"

	"github.com/wardenlock/warden/internal/jsonv"
)

// MaxDepth is SPEC §4's nesting bound: an element deeper than this (the root
// is depth 0) is refused, never hashed.
const MaxDepth = 512

// maxSafeInt is 2^53-1, the largest integer RFC 8785 (and the reference's
// rfc8785 library) accepts when the literal is written as an integer.
var maxSafeInt = big.NewInt(1<<53 - 1)

// CheckDepth refuses v when any element sits deeper than MaxDepth. The walk is
// iterative and stops at the first offending element.
func CheckDepth(v *jsonv.Value) error {
	type frame struct {
		v     *jsonv.Value
		depth int
	}
	stack := []frame{{v, 0}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.depth > MaxDepth {
			return fmt.Errorf("value nests deeper than %d levels", MaxDepth)
		}
		switch f.v.Kind {
		case jsonv.Array:
			for _, it := range f.v.Items {
				stack = append(stack, frame{it, f.depth + 1})
			}
		case jsonv.Object:
			for _, m := range f.v.Members {
				stack = append(stack, frame{m.Value, f.depth + 1})
			}
		}
	}
	return nil
}

// checkNumbers refuses integers outside ±(2^53-1) and floats that are not
// finite, as RFC 8785's I-JSON number domain requires.
func checkNumbers(v *jsonv.Value) error {
	stack := []*jsonv.Value{v}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch n.Kind {
		case jsonv.Int:
			// Cheap pre-check: 15 digits or fewer always fit under 2^53-1.
			if len(strings.TrimPrefix(n.Text, "-")) > 15 {
				i, ok := new(big.Int).SetString(n.Text, 10)
				if !ok || i.CmpAbs(maxSafeInt) > 0 {
					return fmt.Errorf("integer %.40s exceeds the safe integer domain", n.Text)
				}
			}
		case jsonv.Float:
			if f, _ := n.Float64(); math.IsInf(f, 0) || math.IsNaN(f) {
				return fmt.Errorf("number %.40s is not finite", n.Text)
			}
		case jsonv.Array:
			stack = append(stack, n.Items...)
		case jsonv.Object:
			for _, m := range n.Members {
				stack = append(stack, m.Value)
			}
		}
	}
	return nil
}

// Canonical returns the RFC 8785 canonical text of v, refusing values that
// nest deeper than MaxDepth or hold numbers outside the I-JSON domain.
func Canonical(v *jsonv.Value) ([]byte, error) {
	if err := CheckDepth(v); err != nil {
		return nil, fmt.Errorf("canonicalize: %w", err)
	}
	if err := checkNumbers(v); err != nil {
		return nil, fmt.Errorf("canonicalize: %w", err)
	}
	out, err := jcs.Transform(v.AppendCompact(nil))
	if err != nil {
		return nil, fmt.Errorf("canonicalize: %w", err)
	}
	return out, nil
}

// Hash returns "sha256:" + lowercase hex SHA-256 of v's canonical form.
func Hash(v *jsonv.Value) (string, error) {
	c, err := Canonical(v)
	if err != nil {
		return "", err
	}
	return HashBytes(c), nil
}

// HashBytes formats the digest of already canonical bytes.
func HashBytes(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}
