package findings

import (
	"math"
	"math/big"
)

// nearThreshold is how close to the 4.0-bit threshold a fast entropy figure
// must be before it is recomputed exactly. Go's math.Log2 can be an ulp or
// two away from the C library's log2 that Python calls, which moves the sum
// by well under 1e-13; anything farther from the threshold than this is
// decided the same way by both.
const nearThreshold = 1e-9

// entropyScorer computes the Shannon entropy test of the entropy pass. It
// caches exact logarithms for the rare tokens that land next to the
// threshold, keyed by (count, length).
type entropyScorer struct {
	exact map[[2]int]float64
}

// highEntropy reports whether tok's Shannon entropy, in bits per character,
// is at least 4.0. The figure is computed as the reference does: for each
// distinct character in order of first occurrence, p = count/len (a
// correctly rounded division) and the terms p·log2(p) are added left to
// right in float64, then negated.
//
// When every p is a power of two the logarithms are exact in both languages
// and so is the comparison. Otherwise, if the fast figure is within
// nearThreshold of 4.0, it is recomputed with correctly rounded logarithms,
// which is what glibc's log2 delivers, so the decision matches the reference
// bit for bit. (Python 3.12 and later add floats in sum() with compensated
// summation, which can differ from left-to-right addition in the last place;
// only a figure within about 1e-15 of 4.0 could be decided differently.)
func (e *entropyScorer) highEntropy(tok string) bool {
	var counts [256]int
	var order [256]byte
	distinct := 0
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if counts[c] == 0 {
			order[distinct] = c
			distinct++
		}
		counts[c]++
	}
	n := float64(len(tok))
	sum, dyadic := 0.0, true
	for _, c := range order[:distinct] {
		p := float64(counts[c]) / n
		if frac, _ := math.Frexp(p); frac != 0.5 {
			dyadic = false
		}
		sum += p * math.Log2(p)
	}
	h := -sum
	if dyadic || math.Abs(h-entropyThreshold) > nearThreshold {
		return h >= entropyThreshold
	}
	sum = 0
	for _, c := range order[:distinct] {
		p := float64(counts[c]) / n
		sum += p * e.log2(counts[c], len(tok), p)
	}
	return -sum >= entropyThreshold
}

func (e *entropyScorer) log2(count, n int, p float64) float64 {
	key := [2]int{count, n}
	if v, ok := e.exact[key]; ok {
		return v
	}
	if e.exact == nil {
		e.exact = map[[2]int]float64{}
	}
	v := log2Exact(p)
	e.exact[key] = v
	return v
}

// logPrec is the working precision of log2Exact, far beyond the 53 bits of
// the result so the final rounding is correct.
const logPrec = 160

// ln2 is the natural logarithm of 2 at logPrec bits.
var ln2 = func() *big.Float {
	third := new(big.Float).SetPrec(logPrec).Quo(big.NewFloat(1).SetPrec(logPrec), big.NewFloat(3).SetPrec(logPrec))
	return twoAtanh(third)
}()

// log2Exact returns log2(x) correctly rounded to float64, for finite x > 0.
func log2Exact(x float64) float64 {
	frac, exp := math.Frexp(x) // x = frac · 2^exp, frac in [0.5, 1)
	if frac == 0.5 {
		return float64(exp - 1)
	}
	// Keep the mantissa near 1, where the series converges fastest:
	// m in [0.75, 1.5).
	m, k := frac*2, exp-1
	if m >= 1.5 {
		m, k = m/2, k+1
	}
	bm := new(big.Float).SetPrec(logPrec).SetFloat64(m)
	one := new(big.Float).SetPrec(logPrec).SetInt64(1)
	num := new(big.Float).SetPrec(logPrec).Sub(bm, one)
	den := new(big.Float).SetPrec(logPrec).Add(bm, one)
	z := new(big.Float).SetPrec(logPrec).Quo(num, den)
	r := twoAtanh(z)
	r.Quo(r, ln2)
	r.Add(r, new(big.Float).SetPrec(logPrec).SetInt64(int64(k)))
	f, _ := r.Float64()
	return f
}

// twoAtanh returns 2·atanh(z) = ln((1+z)/(1-z)) for |z| <= 1/3 by its power
// series, to logPrec bits.
func twoAtanh(z *big.Float) *big.Float {
	z2 := new(big.Float).SetPrec(logPrec).Mul(z, z)
	pow := new(big.Float).SetPrec(logPrec).Set(z)
	sum := new(big.Float).SetPrec(logPrec).Set(z)
	term := new(big.Float).SetPrec(logPrec)
	for i := int64(3); i < 1000; i += 2 {
		pow.Mul(pow, z2)
		term.Quo(pow, new(big.Float).SetPrec(logPrec).SetInt64(i))
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -logPrec {
			break
		}
		sum.Add(sum, term)
	}
	return sum.Mul(sum, big.NewFloat(2))
}
