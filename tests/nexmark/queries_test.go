package nexmark

import (
	"slices"
	"strings"
	"testing"
)

// stream is a small hand-written stream. The comments give each event's
// windows: its tumbling 10 s window by start, and for bids the starts of
// its five sliding q5 windows.
var stream = []string{
	"P,1000,Peter Jones,p@x.com,1111 2222 3333 4444,Boise,ID,500", // [0, 10000)
	"A,1000,lamp,old lamp,100,200,1000,5000,1000,10",              // [0, 10000), seller 1000
	"B,1000,1001,1000,Google,https://a/1,1000",                    // [0, 10000); -8000 .. 0
	"A,1004,vase,blue vase,10,20,1500,3000,1000,10",               // [0, 10000), seller 1000 again
	"B,1000,1002,2500,Apple,https://a/2,3000",                     // [0, 10000); -6000 .. 2000
	"B,1107,1001,999,channel-7,https://b/7,3500",                  // [0, 10000); -6000 .. 2000
	"P,1001,Kate Smith,k@y.com,5555 6666 7777 8888,Kent,WA,9000",  // [0, 10000)
	"A,1001,desk,oak desk,500,900,9999,20000,1001,11",             // [0, 10000), seller 1001
	"B,1001,1000,2500,Baidu,https://a/3,9999",                     // [0, 10000); 0 .. 8000
	"A,1002,chair,a chair,50,60,10000,30000,1001,12",              // [10000, 20000), seller 1001
	"B,1001,1002,123456789,Google,https://a/4,10000",              // [10000, 20000); 2000 .. 10000
	"B,1230,1001,7,Facebook,https://c/1,11999",                    // [10000, 20000); 2000 .. 10000
	"P,1002,Saul White,s@z.com,0000 0000 0000 0001,Bend,OR,12000", // [10000, 20000)
	"A,1003,rug,red rug,70,80,15000,40000,1002,13",                // [10000, 20000), seller 1002
	"B,1001,1000,10,Apple,https://a/5,19999",                      // [10000, 20000); 10000 .. 18000
	"B,1000,1001,5,Apple,https://a/6,21000",                       // [20000, 30000); 12000 .. 20000
	"A,1005,pen,a pen,1,2,25000,26000,1003,14",                    // [20000, 30000), seller 1003
}

// The expected outputs, worked out by hand from stream.
var (
	wantQ1 = []string{
		"1000,1001,908,Google,https://a/1,1000",        // 1000 * 0.908
		"1000,1002,2270,Apple,https://a/2,3000",        // 2*908 + 500*908/1000 = 1816 + 454
		"1107,1001,907,channel-7,https://b/7,3500",     // 907092/1000
		"1001,1000,2270,Baidu,https://a/3,9999",        //
		"1001,1002,112098764,Google,https://a/4,10000", // 123456*908 + 789*908/1000 = 112098048 + 716
		"1230,1001,6,Facebook,https://c/1,11999",       // 6356/1000
		"1001,1000,9,Apple,https://a/5,19999",          // 9080/1000
		"1000,1001,4,Apple,https://a/6,21000",          // 4540/1000
	}
	wantQ2 = []string{"1107,999", "1230,7"} // 1107 = 9*123, 1230 = 10*123
	wantQ5 = []string{
		"2000,1000,1",  // [-8000, 2000): the bid at 1000
		"4000,1000,2",  // [-6000, 4000): 1000 twice, 1107 once
		"6000,1000,2",  // [-4000, 6000): the same
		"8000,1000,2",  // [-2000, 8000): the same
		"10000,1000,2", // [0, 10000): 1000 twice, 1107 and 1001 once
		"12000,1001,2", // [2000, 12000): 1001 at 9999 and 10000
		"14000,1001,2", // [4000, 14000): 1001 twice, 1230 once
		"16000,1001,2",
		"18000,1001,2",
		"20000,1001,2",                 // [10000, 20000): 1001 at 10000 and 19999
		"22000,1000,1", "22000,1001,1", // [12000, 22000): a tie
		"24000,1000,1", "24000,1001,1",
		"26000,1000,1", "26000,1001,1",
		"28000,1000,1", "28000,1001,1",
		"30000,1000,1", // [20000, 30000): the bid at 21000 alone
	}
	wantQ7 = []string{
		"10000,1000,1002,2500", "10000,1001,1000,2500", // a tie at 2500
		"20000,1001,1002,123456789",
		"30000,1000,1001,5",
	}
	wantQ8 = []string{
		"10000,1000,Peter Jones", // two auctions, one line
		"10000,1001,Kate Smith",  // its auction at 10000 is in the next window
		"20000,1002,Saul White",  // seller 1003 never registered
	}
)

func TestQueriesOnAHandWrittenStream(t *testing.T) {
	e, err := Parse(stream)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Persons) != 3 || len(e.Auctions) != 6 || len(e.Bids) != 8 {
		t.Fatalf("parsed %d persons, %d auctions, %d bids; want 3, 6, 8", len(e.Persons), len(e.Auctions), len(e.Bids))
	}
	for _, q := range []struct {
		name string
		run  func(*Events) []string
		want []string
	}{{"q1", Q1, wantQ1}, {"q2", Q2, wantQ2}, {"q5", Q5, wantQ5}, {"q7", Q7, wantQ7}, {"q8", Q8, wantQ8}} {
		if got, want := q.run(e), sortedCopy(q.want); !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", q.name, got, want)
		}
	}
}

func TestParsedFields(t *testing.T) {
	e, err := Parse(stream[:3])
	if err != nil {
		t.Fatal(err)
	}
	wantP := Person{ID: 1000, Name: "Peter Jones", Email: "p@x.com", CreditCard: "1111 2222 3333 4444", City: "Boise", State: "ID", DateTime: 500}
	wantA := Auction{ID: 1000, ItemName: "lamp", Description: "old lamp", InitialBid: 100, Reserve: 200, DateTime: 1000, Expires: 5000, Seller: 1000, Category: 10}
	wantB := Bid{Auction: 1000, Bidder: 1001, Price: 1000, Channel: "Google", URL: "https://a/1", DateTime: 1000}
	if e.Persons[0] != wantP || e.Auctions[0] != wantA || e.Bids[0] != wantB {
		t.Errorf("parsed %+v, %+v, %+v", e.Persons[0], e.Auctions[0], e.Bids[0])
	}
}

func TestNoEventsNoResults(t *testing.T) {
	e, err := Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []func(*Events) []string{Q1, Q2, Q5, Q7, Q8} {
		if got := q(e); got == nil || len(got) != 0 {
			t.Errorf("got %#v, want an empty, non-nil result", got)
		}
	}
}

func TestParseRejectsMalformedLines(t *testing.T) {
	for _, line := range []string{
		"",
		"X,1,2",
		"B,1,2,3,c,u",
		"B,1,2,3,c,u,7,8",
		"B,1,2,three,c,u,7",
		"P,1,n,e,c,c,s",
		"A,1,i,d,1,2,3,4,5,x",
	} {
		_, err := Parse([]string{stream[0], line})
		if err == nil || !strings.Contains(err.Error(), "line 1 ") {
			t.Errorf("Parse(%q) = %v, want an error naming line 1", line, err)
		}
	}
}

func TestEuros(t *testing.T) {
	tests := []struct{ dollars, euros int64 }{
		{0, 0}, {1, 0}, {2, 1}, {999, 907}, {1000, 908}, {1001, 908}, {1102, 1000},
		{123456789, 112098764},
		{9223372036854775807, 8374821809464136432}, // no overflow
	}
	for _, tt := range tests {
		if got := Euros(tt.dollars); got != tt.euros {
			t.Errorf("Euros(%d) = %d, want %d", tt.dollars, got, tt.euros)
		}
	}
}

func TestWindowStarts(t *testing.T) {
	tests := []struct {
		ts       int64
		tumbling int64
		sliding  []int64
	}{
		{0, 0, []int64{0, -2000, -4000, -6000, -8000}},
		{1999, 0, []int64{0, -2000, -4000, -6000, -8000}},
		{2000, 0, []int64{2000, 0, -2000, -4000, -6000}},
		{9999, 0, []int64{8000, 6000, 4000, 2000, 0}},
		{10000, 10000, []int64{10000, 8000, 6000, 4000, 2000}},
		{-1, -10000, []int64{-2000, -4000, -6000, -8000, -10000}},
	}
	for _, tt := range tests {
		if got := tumblingStart(tt.ts, WindowSize); got != tt.tumbling {
			t.Errorf("tumbling window of %d starts at %d, want %d", tt.ts, got, tt.tumbling)
		}
		if got := slidingStarts(tt.ts, WindowSize, Q5Slide); !slices.Equal(got, tt.sliding) {
			t.Errorf("sliding windows of %d start at %v, want %v", tt.ts, got, tt.sliding)
		}
	}
}

func sortedCopy(lines []string) []string {
	out := slices.Clone(lines)
	slices.Sort(out)
	return out
}
