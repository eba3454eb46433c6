//go:build !wasip1

package main

import (
	"slices"
	"testing"

	"github.com/floe-stream/floe/sdk/go/floetest"
)

// TestAveragesIgnoreArrivalOrder feeds q4's and q6's second steps the same
// closes in two orders, as closes of one key may come from several
// upstream subtasks, and checks that both give the output worked out by
// hand: a close counts once the watermark passes its time, never earlier.
func TestAveragesIgnoreArrivalOrder(t *testing.T) {
	type close struct {
		value string
		ts    int64
	}
	tests := []struct {
		function string
		key      string
		params   map[string]string
		closes   []close // in time order
		want     []string
	}{{
		// q4, windows of 1 s: 100 and 300 close in [0, 1000), 800 in
		// [1000, 2000): averages 200, then (100+300+800)/3 = 400.
		function: "q4-average",
		key:      "10",
		params:   map[string]string{"window_ms": "1000"},
		closes:   []close{{"10,100", 200}, {"10,300", 999}, {"10,800", 1500}},
		want:     []string{"1000,10,200", "2000,10,400"},
	}, {
		// q6: seller 5's auctions 3 (at 200), 1 and 2 (both at 300, 1
		// first by id): averages 100, 150, 500/3 = 166.
		function: "q6-average",
		key:      "5",
		closes:   []close{{"5,3,100", 200}, {"5,1,200", 300}, {"5,2,200", 300}},
		want:     []string{"200,5,3,100", "300,5,1,150", "300,5,2,166"},
	}}
	for _, tt := range tests {
		for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}} {
			h := floetest.New()
			if err := h.Open(tt.function, tt.params); err != nil {
				t.Fatal(err)
			}
			var recs []floetest.Record
			for _, i := range order {
				c := tt.closes[i]
				recs = append(recs, floetest.Record{Key: []byte(tt.key), Value: []byte(c.value), Timestamp: c.ts})
			}
			out, err := h.Process(recs...)
			if err != nil || len(out) > 0 {
				t.Fatalf("%s: output %v, %v before any watermark", tt.function, out, err)
			}
			end, err := h.AdvanceWatermark(1 << 40)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range end {
				got = append(got, string(e.Value))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s, closes in order %v: got %q, want %q", tt.function, order, got, tt.want)
			}
		}
	}
}
