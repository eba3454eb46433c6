package nexmark

import (
	"slices"
	"testing"
)

// TestNativeJoinsEqualTheBruteForce runs the native q3, q4, q9 and q11 over
// generated streams and compares their lines with the brute force's.
func TestNativeJoinsEqualTheBruteForce(t *testing.T) {
	type native interface {
		Add(line []byte, ts int64, emit func([]byte)) error
		Flush(emit func([]byte))
	}
	for _, n := range []int64{0, 5_000, 150_000} {
		lines, stamps, strs := generate(n, 10_000)
		e, err := Parse(strs)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct {
			name   string
			native native
			ref    func(*Events) []string
		}{
			{"q3", &Q3Native{}, Q3}, {"q4", &Q4Native{}, Q4}, {"q9", &Q9Native{}, Q9}, {"q11", &Q11Native{}, Q11},
		} {
			got := []string{}
			emit := func(l []byte) { got = append(got, string(l)) }
			for i := range lines {
				if err := q.native.Add(lines[i], stamps[i], emit); err != nil {
					t.Fatalf("%s, event %d: %v", q.name, i, err)
				}
			}
			q.native.Flush(emit)
			slices.Sort(got)
			want := q.ref(e)
			if n > 100_000 && len(want) < 10 {
				t.Errorf("%s over %d events: only %d lines, the check proves little", q.name, n, len(want))
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s over %d events: %d lines, the brute force %d", q.name, n, len(got), len(want))
			}
		}
	}
}
