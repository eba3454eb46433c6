package nexmark

import (
	"fmt"
	"slices"
	"testing"
)

// statsStream is bids over two days (1970-01-01 and 02) with prices at the
// edges of q14's range, a tie in time (q18) and a tie in price (q19).
var statsStream = []string{
	"B,1,10,2000000,Apple,https://c/c,1000",      // 00:00, rank 3
	"B,1,11,50000,Apple,https://a,1000",          // 00:00, rank 2
	"B,1,10,10000000,Google,https://a,28800000",  // 08:00, rank 3
	"B,2,10,1101322,Apple,https://x,25200005",    // 07:00, × 0.908 = 1,000,000.376
	"B,2,10,1101321,Apple,https://x,154800000",   // 02 19:00, × 0.908 = 999,999.468
	"B,2,12,60000000,Google,https://c,158400000", // 02 20:00, × 0.908 = 54,480,000
	"B,2,10,299,Apple,https://b,154800000",       // 02 19:00, rank 1
	"B,2,13,1101322,Apple,https://y,25200000",    // 07:00, q19 tie with the 4th
}

// The expected outputs, worked out by hand from statsStream.
var (
	wantQ14 = []string{
		"1,10,1816000,nightTime,1000,2",
		"1,10,9080000,dayTime,28800000,0",
		"2,10,1000000,otherTime,25200005,0",
		"2,13,1000000,otherTime,25200000,0",
	}
	// Day 1: five bids (none, one, four per range), bidders 10, 11, 13
	// (11 in rank 2; 10 and 13 in rank 3), auctions 1 and 2 (1 in rank 2,
	// both in rank 3). Day 2: three bids of auction 2, bidder 10 in ranks
	// 1 and 3, 12 in rank 3.
	wantQ15 = []string{
		"1970-01-01,5,0,1,4,3,0,1,2,2,0,1,2",
		"1970-01-02,3,1,0,2,2,1,0,2,1,1,0,1",
	}
	wantQ16 = []string{
		"Apple,1970-01-01,07:00,4,0,1,3,3,0,1,2,2,0,1,2",
		"Apple,1970-01-02,19:00,2,1,0,1,1,1,0,1,1,1,0,1",
		"Google,1970-01-01,08:00,1,0,0,1,1,0,0,1,1,0,0,1",
		"Google,1970-01-02,20:00,1,0,0,1,1,0,0,1,1,0,0,1",
	}
	// Bidder 10 on auction 2 bids twice at 154800000: "2,10,299" is the
	// greater line.
	wantQ18 = []string{
		"1,10,10000000,Google,https://a,28800000",
		"1,11,50000,Apple,https://a,1000",
		"2,10,299,Apple,https://b,154800000",
		"2,12,60000000,Google,https://c,158400000",
		"2,13,1101322,Apple,https://y,25200000",
	}
	// On auction 2, bidder 13's 1101322 ranks before bidder 10's: earlier.
	wantQ19 = []string{
		"1,10,10000000,Google,https://a,28800000,1",
		"1,10,2000000,Apple,https://c/c,1000,2",
		"1,11,50000,Apple,https://a,1000,3",
		"2,12,60000000,Google,https://c,158400000,1",
		"2,13,1101322,Apple,https://y,25200000,2",
		"2,10,1101322,Apple,https://x,25200005,3",
		"2,10,1101321,Apple,https://x,154800000,4",
		"2,10,299,Apple,https://b,154800000,5",
	}
)

func TestBidQueriesOnAHandWrittenStream(t *testing.T) {
	e, err := Parse(statsStream)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		name string
		run  func(*Events) []string
		want []string
	}{{"q14", Q14, wantQ14}, {"q15", Q15, wantQ15}, {"q16", Q16, wantQ16}, {"q18", Q18, wantQ18}, {"q19", Q19, wantQ19}} {
		if got, want := q.run(e), sortedCopy(q.want); !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", q.name, got, want)
		}
	}
}

// TestQ19KeepsTen checks that of 12 bids on one auction, priced 1 to 12,
// q19 ranks the ten from 12 down to 3.
func TestQ19KeepsTen(t *testing.T) {
	var lines, want []string
	for p := 1; p <= 12; p++ {
		lines = append(lines, fmt.Sprintf("B,7,%d,%d,c,u,%d", p, p, p))
		if p >= 3 {
			want = append(want, fmt.Sprintf("7,%d,%d,c,u,%d,%d", p, p, p, 13-p))
		}
	}
	e, err := Parse(lines)
	if err != nil {
		t.Fatal(err)
	}
	if got := Q19(e); !slices.Equal(got, sortedCopy(want)) {
		t.Errorf("got %q\nwant %q", got, sortedCopy(want))
	}
}
