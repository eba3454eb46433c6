//go:build !wasip1

package main

import (
	"slices"
	"testing"

	floe "github.com/floe-stream/floe/sdk/go"
	"github.com/floe-stream/floe/sdk/go/floetest"
	"github.com/floe-stream/floe/tests/nexmark"
)

// dayBids are bids over two UTC days and two channels, in each price
// range, with a bidder and an auction in several ranges.
var dayBids = []string{
	"B,1,10,2000000,Apple,https://c/c,1000",
	"B,1,11,50000,Apple,https://a,1000",
	"B,1,10,10000000,Google,https://a,28800000",
	"B,2,10,1101322,Apple,https://x,25200005",
	"B,2,13,1101322,Apple,https://y,25200000",
	"B,2,10,299,Apple,https://b,154800000",
	"B,2,12,60000000,Google,https://c,158400000",
	"B,2,10,1101321,Apple,https://x,154800000",
}

// TestDayStats runs q15 and q16 over each day's window of dayBids, keyed
// as their specs key them, and checks tests/nexmark's brute force. (The
// 200K events of the minicluster test all fall on one day.)
func TestDayStats(t *testing.T) {
	e, err := nexmark.Parse(dayBids)
	if err != nil {
		t.Fatal(err)
	}
	const day = 86_400_000
	for _, q := range []struct {
		name string
		key  func([]byte) []byte
		want []string
	}{
		{"q15", func(b []byte) []byte { k, _ := bidDay(b); return k }, nexmark.Q15(e)},
		{"q16", func(b []byte) []byte { return field(b, 4) }, nexmark.Q16(e)},
	} {
		t.Run(q.name, func(t *testing.T) {
			h := floetest.New()
			if err := h.Open(q.name, nil); err != nil {
				t.Fatal(err)
			}
			// The window operator's panes: key and day.
			panes := map[string][]floetest.Record{}
			var order []string
			for _, l := range dayBids {
				ts := nexmarkTime(t, l)
				p := string(q.key([]byte(l))) + "\x00" + string(floe.AppendInt(nil, ts-ts%day))
				if panes[p] == nil {
					order = append(order, p)
				}
				panes[p] = append(panes[p], floetest.Record{Value: []byte(l), Timestamp: ts})
			}
			var got []string
			for _, p := range order {
				recs := panes[p]
				start := recs[0].Timestamp - recs[0].Timestamp%day
				key := q.key(recs[0].Value)
				out, err := h.ProcessWindow(key, floe.Window{Start: start, End: start + day}, recs...)
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range out {
					got = append(got, string(o.Value))
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, q.want) {
				t.Errorf("got %q\nwant %q", got, q.want)
			}
		})
	}
}

// nexmarkTime returns a bid line's dateTime.
func nexmarkTime(t *testing.T, line string) int64 {
	ts, ok := atoi(field([]byte(line), 6))
	if !ok {
		t.Fatalf("bid %q has no dateTime", line)
	}
	return ts
}
