//go:build !wasip1

package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	floe "github.com/floe-stream/floe/sdk/go"
)

// TestFirstStepsKeepWhatTheQueriesRead checks q5's and q7's projections
// against the steps they replace: bid-auctions emits a bid's key under
// bid-auction, window-bids a line whose first field is its key under
// bid-window and over which max-bids gives max-bid's result over the
// whole bids, for random events, bids and others.
func TestFirstStepsKeepWhatTheQueriesRead(t *testing.T) {
	windowMillis = 10_000
	rng := rand.New(rand.NewPCG(5, 6))
	for run := range 100 {
		var bids, projected []floe.Record
		for range 1 + rng.IntN(40) {
			ev := fmt.Appendf(nil, "B,%d,%d,%d,Apple,https://x/y?a=b,%d,", 1000+rng.IntN(9), rng.IntN(20), rng.IntN(5), 9_990+rng.IntN(20))
			switch rng.IntN(4) {
			case 0:
				ev = fmt.Appendf(nil, "P,%d,Jo,jo@x,555,Paris,OR,%d,", rng.IntN(9), rng.IntN(20_000))
			case 1:
				ev = fmt.Appendf(nil, "A,%d,item,desc,1,2,%d,%d,3,10,", rng.IntN(9), rng.IntN(20_000), rng.IntN(20_000))
			}
			var keys, lines emitted
			if err := bidAuctions(ev, &keys); err != nil {
				t.Fatal(err)
			}
			if err := windowBids(ev, &lines); err != nil {
				t.Fatal(err)
			}
			if ev[0] != 'B' {
				if len(keys)+len(lines) != 0 {
					t.Fatalf("run %d: %q passed %q and %q", run, ev, keys, lines)
				}
				continue
			}
			auction, _ := bidAuction(ev)
			window, _ := bidWindow(ev)
			if !slices.Equal(keys, emitted{string(auction)}) || len(lines) != 1 || string(field([]byte(lines[0]), 0)) != string(window) {
				t.Fatalf("run %d: %q gave %q and %q, want key %q and window %q", run, ev, keys, lines, auction, window)
			}
			bids = append(bids, floe.Record{Value: ev})
			projected = append(projected, floe.Record{Value: []byte(lines[0])})
		}
		got, err := runBest(t, bestBy(3, 1, 3, maxBidsResult), projected, 1+rng.IntN(10))
		if err != nil {
			t.Fatal(err)
		}
		var want emitted
		if err := maxBid(nil, floe.Window{Start: 0, End: 10_000}, bids, &want); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("run %d:\ngot  %q\nwant %q", run, got, want)
		}
	}
}
