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
	// Seller 1000's auction 1000 closes at 5000 with 2500; seller 1001's
	// 1001 at 20000 with 123456789: one close each.
	wantQ6 = []string{"5000,1000,1000,2500", "20000,1001,1001,123456789"}
	// 1000 (category 10) closes at 5000, in [0, 10000); 1001 (11) at
	// 20000, in [20000, 30000).
	wantQ4 = []string{"10000,10,2500", "30000,11,123456789"}
	// Bidder 1001 bids at 1000, 3500, 11999 and 21000, each under 10 s
	// after the last; 1002 at 3000 and 10000; 1000 at 9999 and 19999,
	// exactly 10 s apart, so their windows touch and merge.
	wantQ11 = []string{"1001,4,1000,31000", "1002,2,3000,20000", "1000,2,9999,29999"}
	// Per auction (the stream is all on 1970-01-01): 1000 has bids of
	// 1000, 2500 and 5 cents; 1001 of 2500, 123456789 and 10; 1107 and 1230
	// one each.
	wantQ17 = []string{
		"1000,1970-01-01,3,3,0,0,5,2500,1168,3505",
		"1001,1970-01-01,3,2,0,1,10,123456789,41153099,123459299",
		"1107,1970-01-01,1,1,0,0,999,999,999,999",
		"1230,1970-01-01,1,1,0,0,7,7,7,7",
	}
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
	}{{"q3", Q3, wantQ3}, {"q4", Q4, wantQ4}, {"q6", Q6, wantQ6}, {"q9", Q9, wantQ9}, {"q11", Q11, wantQ11}, {"q17", Q17, wantQ17}, {"q20", Q20, wantQ20}} {
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

// TestQ6AveragesTheLastTen checks q6's sliding average over a seller's
// closes in order of expiry, then auction id: the 11th close drops the
// first from the average.
func TestQ6AveragesTheLastTen(t *testing.T) {
	e := &Events{}
	// Auctions 1 to 12 of seller 5, listed out of expiry order: auction i
	// expires at 1000 + 100*(12-i), so the last listed closes first, except
	// auction 1, which shares auction 2's expiry.
	prices := []int64{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120}
	for i := int64(1); i <= 12; i++ {
		exp := 1000 + 100*(12-i)
		if i == 1 {
			exp = 1000 + 100*10 // the same as auction 2's
		}
		e.Auctions = append(e.Auctions, Auction{ID: i, DateTime: 0, Expires: exp, Seller: 5, Category: 10})
		e.Bids = append(e.Bids, Bid{Auction: i, Bidder: 1, Price: prices[i], DateTime: 1})
	}
	got := Q6(e)
	// Closes in order: 12 (1000), 11, 10, ..., 3 (1900), then 1 and 2 at
	// 2000, 1 first. Prices 120, 110, ..., 30, then 10, then 20.
	want := []string{
		"1000,5,12,120", "1100,5,11,115", "1200,5,10,110", "1300,5,9,105", "1400,5,8,100",
		"1500,5,7,95", "1600,5,6,90", "1700,5,5,85", "1800,5,4,80", "1900,5,3,75",
		"2000,5,1,64", "2000,5,2,55",
	}
	// 11th close (auction 1, price 10): the last ten are 110..30 (9 prices,
	// sum 630) and 10: 640/10 = 64. 12th (auction 2, price 20): 100..30
	// (8 prices, sum 520), 10 and 20: 550/10 = 55.
	if !slices.Equal(got, sortedCopy(want)) {
		t.Errorf("got %q\nwant %q", got, sortedCopy(want))
	}
}

func TestQ13JoinsBidsWithTheirKeys(t *testing.T) {
	e, err := Parse(stream)
	if err != nil {
		t.Fatal(err)
	}
	// Keys 1000 and 1230 are auctions 1000 and 1230 mod 10000; no bid is on
	// auction 7.
	got := Q13(e, map[int64]string{1000: "x", 1230: "y", 7: "z"})
	want := sortedCopy([]string{"1000,1001,1000,1000,x", "1000,1002,2500,3000,x", "1000,1001,5,21000,x", "1230,1001,7,11999,y"})
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestChannelsAndURLs(t *testing.T) {
	e := &Events{Bids: []Bid{
		{Auction: 1, Bidder: 2, Price: 3, Channel: "Apple", URL: "https://www.nexmark.com/a/b/c/item.htm?query=1"},
		{Auction: 1, Bidder: 2, Price: 3, Channel: "BAIDU", URL: "x"},
		{Auction: 1, Bidder: 2, Price: 3, Channel: "channel-9", URL: "https://www.nexmark.com/d/e/f/item.htm?query=1&channel_id=42"},
		{Auction: 1, Bidder: 2, Price: 3, Channel: "channel-8", URL: "channel_id=7&x=1"},
		{Auction: 1, Bidder: 2, Price: 3, Channel: "channel-5", URL: "https://www.nexmark.com/g/item.htm?query=1&xchannel_id=5"},
	}}
	wantQ21 := sortedCopy([]string{"1,2,3,Apple,0", "1,2,3,BAIDU,3", "1,2,3,channel-9,42", "1,2,3,channel-8,7"})
	if got := Q21(e); !slices.Equal(got, wantQ21) {
		t.Errorf("q21: got %q\nwant %q", got, wantQ21)
	}
	wantQ22 := sortedCopy([]string{
		"1,2,3,Apple,a,b,c", "1,2,3,BAIDU,,,", "1,2,3,channel-9,d,e,f", "1,2,3,channel-8,,,",
		"1,2,3,channel-5,g,item.htm?query=1&xchannel_id=5,",
	})
	if got := Q22(e); !slices.Equal(got, wantQ22) {
		t.Errorf("q22: got %q\nwant %q", got, wantQ22)
	}
}
