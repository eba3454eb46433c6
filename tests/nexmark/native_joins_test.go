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
			least  int // lines over 150,000 events
		}{
			{"q3", &Q3Native{}, Q3, 10}, {"q4", &Q4Native{}, Q4, 10}, {"q9", &Q9Native{}, Q9, 10}, {"q11", &Q11Native{}, Q11, 10},
			{"q4-average", &Q4AverageNative{}, Q4Average, categories},
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
			if n > 100_000 && len(want) < q.least {
				t.Errorf("%s over %d events: only %d lines, the check proves little", q.name, n, len(want))
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s over %d events: %d lines, the brute force %d", q.name, n, len(got), len(want))
			}
		}
	}
}

// TestQ4AverageIsTheMeanOfTheWinningPrices works q4's averages out by hand:
// a bid outside its auction's span does not count, a whole mean keeps its
// ".0", and a category without a winner has no line.
func TestQ4AverageIsTheMeanOfTheWinningPrices(t *testing.T) {
	e := &Events{
		Auctions: []Auction{
			{ID: 1, DateTime: 100, Expires: 200, Category: 10},
			{ID: 2, DateTime: 100, Expires: 200, Category: 10},
			{ID: 3, DateTime: 100, Expires: 200, Category: 11},
			{ID: 4, DateTime: 100, Expires: 200, Category: 12},
		},
		Bids: []Bid{
			{Auction: 1, Price: 10, DateTime: 150}, {Auction: 1, Price: 99, DateTime: 201},
			{Auction: 2, Price: 7, DateTime: 100}, {Auction: 2, Price: 5, DateTime: 200},
			{Auction: 3, Price: 4, DateTime: 120},
			{Auction: 4, Price: 50, DateTime: 99},
		},
	}
	want := []string{"10,8.5", "11,4.0"}
	if got := Q4Average(e); !slices.Equal(got, want) {
		t.Errorf("Q4Average = %q, want %q", got, want)
	}
}
