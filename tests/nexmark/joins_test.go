package nexmark

import (
	"slices"
	"testing"
)

// The expected outputs of the queries over several kinds of event, worked
// out by hand from stream (queries_test.go).
var (
	// Auctions 1000 and 1004 are of category 10, both sold by 1000 of ID.
	wantQ3 = []string{"Peter Jones,Boise,ID,1000", "Peter Jones,Boise,ID,1004"}
	// 1000 runs [1000, 5000]: 2500 at 3000 beats 1000 at 1000 (5 at 21000
	// is too late). 1001 runs [9999, 20000]: 123456789 at 10000 beats 2500
	// and 10. 1004 has no bid; 1002, 1003 and 1005 none in time.
	wantQ9 = []string{
		"1000,lamp,old lamp,100,200,1000,5000,1000,10,1002,2500,3000",
		"1001,desk,oak desk,500,900,9999,20000,1001,11,1002,123456789,10000",
	}
	// 1000 (category 10) closes at 5000, in [0, 10000); 1001 (11) at
	// 20000, in [20000, 30000).
	wantQ4 = []string{"10000,10,2500", "30000,11,123456789"}
	// Bidder 1001 bids at 1000, 3500, 11999 and 21000, each under 10 s
	// after the last; 1002 at 3000 and 10000; 1000 at 9999 and 19999,
	// exactly 10 s apart, so their windows touch and merge.
	wantQ11 = []string{"1001,4,1000,31000", "1002,2,3000,20000", "1000,2,9999,29999"}
	// The bids on auction 1000, the one of category 10 with bids.
	wantQ20 = []string{
		"1000,1001,1000,Google,https://a/1,1000,lamp,old lamp,100,200,1000,5000,1000,10",
		"1000,1002,2500,Apple,https://a/2,3000,lamp,old lamp,100,200,1000,5000,1000,10",
		"1000,1001,5,Apple,https://a/6,21000,lamp,old lamp,100,200,1000,5000,1000,10",
	}
)

func TestJoinQueriesOnAHandWrittenStream(t *testing.T) {
	e, err := Parse(stream)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		name string
		run  func(*Events) []string
		want []string
	}{{"q3", Q3, wantQ3}, {"q4", Q4, wantQ4}, {"q9", Q9, wantQ9}, {"q11", Q11, wantQ11}, {"q20", Q20, wantQ20}} {
		if got, want := q.run(e), sortedCopy(q.want); !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", q.name, got, want)
		}
	}
	if got := Q0(e); len(got) != len(e.Bids) || !slices.Contains(got, stream[2]) {
		t.Errorf("q0 gives %d lines, want the %d bid lines as they are", len(got), len(e.Bids))
	}
}

// TestWinnerTies checks the order among bids of equal price: the earlier
// wins, and of equal times the lower bidder.
func TestWinnerTies(t *testing.T) {
	a := Auction{ID: 1, DateTime: 0, Expires: 100, Category: 10}
	e := &Events{Auctions: []Auction{a}, Bids: []Bid{
		{Auction: 1, Bidder: 9, Price: 50, DateTime: 20},
		{Auction: 1, Bidder: 8, Price: 50, DateTime: 20},
		{Auction: 1, Bidder: 7, Price: 50, DateTime: 30},
		{Auction: 1, Bidder: 6, Price: 40, DateTime: 10},
		{Auction: 1, Bidder: 5, Price: 99, DateTime: 101},
	}}
	w := Winners(e)
	if len(w) != 1 || w[0].Bid.Bidder != 8 {
		t.Errorf("winners %+v, want bidder 8's bid", w)
	}
}
