//go:build !wasip1

package main

import (
	"math"
	"slices"
	"testing"

	"github.com/floe-stream/floe/sdk/go/floetest"
	"github.com/floe-stream/floe/tests/nexmark"
)

// bidLines are bids with the ties q18 and q19 break by the line: bidder
// 10's two bids on auction 2 at the same time, and two bids of one price
// at the same time on auction 3.
var bidLines = []string{
	"B,2,10,1101321,Apple,https://x,154800000",
	"B,2,10,299,Apple,https://b,154800000",
	"B,2,12,60000000,Google,https://c,158400000",
	"B,3,14,500,Apple,https://b,9000",
	"B,3,15,500,Apple,https://a,9000",
	"B,3,14,700,Apple,https://b,8000",
}

// TestLastAndTopBidsWhateverTheOrder feeds q18 and q19 the bids in order
// and reversed, and checks that both orders give tests/nexmark's brute
// force, all at the end of the input and with no timer left.
func TestLastAndTopBidsWhateverTheOrder(t *testing.T) {
	e, err := nexmark.Parse(bidLines)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		name string
		key  func([]byte) ([]byte, error)
		want []string
	}{
		{"q18", bidderAuction, nexmark.Q18(e)},
		{"q19", func(b []byte) ([]byte, error) { return field(b, 1), nil }, nexmark.Q19(e)},
	} {
		reversed := slices.Clone(bidLines)
		slices.Reverse(reversed)
		for _, order := range [][]string{bidLines, reversed} {
			t.Run(q.name, func(t *testing.T) {
				h := floetest.New()
				if err := h.Open(q.name, nil); err != nil {
					t.Fatal(err)
				}
				var recs []floetest.Record
				for _, l := range order {
					k, _ := q.key([]byte(l))
					recs = append(recs, floetest.Record{Key: k, Value: []byte(l)})
				}
				out, err := h.Process(recs...)
				if err != nil || len(out) != 0 {
					t.Fatalf("process: %d lines, %v", len(out), err)
				}
				if out, err = h.AdvanceWatermark(math.MaxInt64 - 1); err != nil || len(out) != 0 {
					t.Fatalf("before the end: %d lines, %v", len(out), err)
				}
				if out, err = h.AdvanceWatermark(math.MaxInt64); err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, o := range out {
					got = append(got, string(o.Value))
				}
				slices.Sort(got)
				if !slices.Equal(got, q.want) {
					t.Errorf("got %q\nwant %q", got, q.want)
				}
				if n := h.Timers(); n != 0 {
					t.Errorf("%d timers left", n)
				}
			})
		}
	}
}
