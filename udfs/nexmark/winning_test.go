//go:build !wasip1

package main

import (
	"slices"
	"testing"

	"github.com/floe-stream/floe/sdk/go/floetest"
)

// TestWinningBidOrdering feeds q9's two functions bids that come before
// their auction, bids out of its time range, a tie and a bid after the
// auction closed, as the two inputs of a coProcess may interleave, and
// checks the one winner the definition gives: of the bids between the
// auction's start (100) and expiry (200), the highest price, the earliest
// of equal prices, the lowest bidder of equal prices and times.
func TestWinningBidOrdering(t *testing.T) {
	h := floetest.New()
	// A closed auction is remembered 50 ms past its expiry.
	if err := h.OpenCoProcess("q9-auction", "q9-bid", map[string]string{"closed_ms": "50"}); err != nil {
		t.Fatal(err)
	}
	bid := func(auction, bidder, price, ts string) floetest.Record {
		return floetest.Record{Key: []byte(auction), Value: []byte("B," + auction + "," + bidder + "," + price + ",c,u," + ts), Timestamp: atoiT(t, ts)}
	}
	auction := floetest.Record{Key: []byte("7"), Value: []byte("A,7,item,desc,1,2,100,200,1000,10"), Timestamp: 100}
	var got []string
	step := func(out []floetest.Emitted, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range out {
			got = append(got, string(e.Value))
		}
	}
	step(h.AdvanceWatermark(90))
	step(h.Process2(
		bid("7", "3", "50", "150"), // before its auction: kept, counts
		bid("7", "4", "999", "95"), // before the auction's start: kept, never counts
		bid("8", "5", "999", "80"), // at or below the watermark with no auction: dropped
		bid("7", "2", "50", "150"), // a tie with bidder 3: bidder 2 is lower
	))
	step(h.Process(auction))
	step(h.Process2(
		bid("7", "1", "50", "160"),   // the same price later: loses
		bid("7", "9", "5000", "201"), // after the expiry: does not count
	))
	step(h.AdvanceWatermark(199))
	if len(got) != 0 {
		t.Fatalf("output before the expiry: %q", got)
	}
	step(h.AdvanceWatermark(200))
	// The early bids' timer (their dateTimes rounded up to 1000) waits,
	// and does nothing when it fires: the auction took them. The closed
	// auction needs none: the instance remembers it in memory.
	if n := h.Timers(); n != 1 {
		t.Errorf("%d timers after the close, want 1: the early bids'", n)
	}
	step(h.Process2(bid("7", "6", "7000", "230")))  // after the close: dropped at once
	step(h.AdvanceWatermark(1000))                  // the closed auction is forgotten
	step(h.Process2(bid("7", "6", "7000", "1100"))) // so this one waits, then is dropped
	step(h.AdvanceWatermark(2000))
	want := []string{"7,item,desc,1,2,100,200,1000,10,2,50,150"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if n := h.Timers(); n != 0 {
		t.Errorf("%d timers left", n)
	}
}

func atoiT(t *testing.T, s string) int64 {
	t.Helper()
	v, ok := atoi([]byte(s))
	if !ok {
		t.Fatalf("%q is not a number", s)
	}
	return v
}

// TestEarlyBidTimer checks that an early bid's timer is its dateTime
// rounded up to a tick, never before it.
func TestEarlyBidTimer(t *testing.T) {
	for _, c := range []struct{ in, want int64 }{
		{0, 0}, {1, 1000}, {999, 1000}, {1000, 1000}, {1001, 2000},
		{-1, 0}, {-1000, -1000}, {-1500, -1000},
	} {
		if got := earlyBidTimer(c.in); got != c.want {
			t.Errorf("earlyBidTimer(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

// TestClosedAuctions checks that a closed auction is remembered until its
// time and forgotten once time reaches it, in order of closing.
func TestClosedAuctions(t *testing.T) {
	var c closedAuctions
	c.add([]byte("1"), 100)
	c.add([]byte("2"), 150)
	c.add([]byte("3"), 200)
	for _, s := range []struct {
		forget int64
		want   string // remembered keys among 1, 2, 3
	}{{50, "123"}, {100, "23"}, {199, "3"}, {200, ""}} {
		c.forget(s.forget)
		got := ""
		for _, k := range []string{"1", "2", "3"} {
			if c.has([]byte(k)) {
				got += k
			}
		}
		if got != s.want {
			t.Errorf("after forget(%d): remembered %q, want %q", s.forget, got, s.want)
		}
	}
}

// TestParseBid checks that parseBid, which skips a bid's channel and url,
// reads what splitting the whole line reads, and refuses lines that are
// not bids.
func TestParseBid(t *testing.T) {
	for _, c := range []struct {
		line string
		want bid
		ok   bool
	}{
		{"B,1000,1001,255,channel-1614,https://www.nexmark.com/gbgz/_klz/_cv/item.htm?query=1&channel_id=1918894080,1704067200019", bid{255, 1704067200019, 1001}, true},
		{"B,7,3,50,c,u,150", bid{50, 150, 3}, true},
		{"A,7,3,50,c,u,150", bid{}, false},
		{"B,7,3,50", bid{}, false},
		{"B,7,3,x,c,u,150", bid{}, false},
		{"B,7,3,50,c,u,", bid{}, false},
		{"B,7,3,50,150", bid{}, false}, // five fields
		{"B,7,3,50,c,u,15x0", bid{}, false},
		{"B,,3,50,c,u,150", bid{}, false},
		{"B,7,,50,c,u,150", bid{}, false},
		{"B,7,3,,c,u,150", bid{}, false},
		{"B,7,3,50", bid{}, false},
		{"B,7,3,50,", bid{}, false},
		{"B,7,3", bid{}, false},
		{"B,", bid{}, false},
		{"B", bid{}, false},
		{"Bx7,3,50,c,u,150", bid{}, false},
		{"B,7,3,5000000000000000000,c,u,150", bid{}, false},
		{"B,7,3,50,c,u,1000000000000000000", bid{}, false},
		{"B,7,3,50,c,u,999999999999999999", bid{50, 999999999999999999, 3}, true},
	} {
		got, ok := parseBid([]byte(c.line))
		if ok != c.ok || got != c.want {
			t.Errorf("parseBid(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// TestTimesCodec checks that auction times survive the codec, that a
// decode leaves nothing of the previous one in the shared value (a best
// bid above all), and that malformed values are refused.
func TestTimesCodec(t *testing.T) {
	c := timesCodec{}
	for _, want := range []times{
		{start: 10, end: 20, found: true, best: bid{price: 7, dateTime: 15, bidder: 3}},
		{start: 1, end: 2},
		{start: -5, end: 1 << 40, closed: true},
		{start: 3, end: 4, closed: true, found: true, best: bid{price: 1 << 50, dateTime: -1, bidder: 9}},
	} {
		p := c.Append([]byte("junk"), &want)[4:]
		if n := len(p); n != 17 && n != 41 {
			t.Fatalf("%+v encodes to %d bytes, want 17 or 41", want, n)
		}
		got, err := c.Decode(p)
		if err != nil || *got != want {
			t.Errorf("Decode(Append(%+v)) = %+v, %v", want, got, err)
		}
	}
	for _, n := range []int{0, 16, 18, 40, 42} {
		if got, err := c.Decode(make([]byte, n)); err == nil {
			t.Errorf("Decode of %d bytes = %+v, want an error", n, got)
		}
	}
}
