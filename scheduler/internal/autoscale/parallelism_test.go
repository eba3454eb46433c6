package autoscale

import "testing"

// TestParallelism checks the formula on hand-computed cases, including
// exact quotients, which must not round up.
func TestParallelism(t *testing.T) {
	for _, tc := range []struct {
		name                string
		required, rate, hot float64
		u                   float64
		current, want       int
		skewNote            bool
	}{
		// 1400 / (1000 × 0.7) = 2 exactly.
		{"exact", 1400, 1000, 0, 0.7, 5, 2, false},
		// 1401 / 700 = 2.001 → 3.
		{"just over", 1401, 1000, 0, 0.7, 5, 3, false},
		// 70 / (0.7 × 0.8) = 125 exactly, in floats 125.00000000000001.
		{"float noise", 70, 0.7, 0, 0.8, 5, 125, false},
		// hot 0.25: 1000 × 0.75 / (700 − 250) = 1.67 → 2.
		{"skew", 1000, 1000, 0.25, 0.7, 1, 2, false},
		// hot 0.7: 700 ≥ 700, nothing helps; the rest needs
		// ceil(300 / 700) = 1, current 3 is kept.
		{"skew bound", 1000, 1000, 0.7, 0.7, 3, 3, true},
		// no load → 1; no busy time → current.
		{"no load", 0, 1000, 0, 0.7, 4, 1, false},
		{"no rate", 100, 0, 0, 0.7, 4, 4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, note := Parallelism(tc.required, tc.rate, tc.hot, tc.u, tc.current)
			if got != tc.want {
				t.Errorf("got %d, want %d (%s)", got, tc.want, note)
			}
			if isSkew := len(note) > 5 && note[:5] == "skew:"; isSkew != tc.skewNote {
				t.Errorf("note %q, skew note wanted: %t", note, tc.skewNote)
			}
		})
	}
}
