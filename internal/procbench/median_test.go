package procbench

import "testing"

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{0.4}, 0.4},
		{[]float64{0.9, 0.1}, 0.5},
		{[]float64{0.3, 5, 0.2}, 0.3},
		{[]float64{0.6, 0.1, 0.5, 9}, 0.55},
	} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}
