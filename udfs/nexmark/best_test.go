//go:build !wasip1

package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	floe "github.com/floe-stream/floe/sdk/go"
)

// emitted is an Emitter that keeps what it gets.
type emitted []string

func (l *emitted) Emit(v []byte)             { *l = append(*l, string(v)) }
func (l *emitted) EmitTo(_ string, v []byte) { l.Emit(v) }

// runBest folds recs into fn's accumulator a chunk at a time, through the
// codec between chunks as the host stores it, merges the chunks' and
// returns the lines of its result.
func runBest(t *testing.T, fn floe.AggregateFunc[best], recs []floe.Record, chunk int) (emitted, error) {
	t.Helper()
	var accs []best
	for len(recs) > 0 {
		n := min(chunk, len(recs))
		a := fn.Create()
		for i, r := range recs[:n] {
			a = fn.Add(a, r)
			if i%2 == 0 {
				var err error
				if a, err = (bestCodec{}).Decode((bestCodec{}).Append(nil, a)); err != nil {
					t.Fatal(err)
				}
			}
		}
		accs, recs = append(accs, a), recs[n:]
	}
	m := fn.Create()
	for _, a := range accs {
		m = fn.Merge(m, a)
	}
	var out emitted
	err := fn.Result(nil, floe.Window{Start: 0, End: 10_000}, m, &out)
	return out, err
}

// TestMaxBidsAndTopCountsMatchTheProcessFunctions checks the aggregates
// against max-bid and hot-items, which see all the window's records at
// once, over random bids and counts with many ties, whatever the chunks.
func TestMaxBidsAndTopCountsMatchTheProcessFunctions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for run := range 200 {
		var bids, counts []floe.Record
		for i := range 1 + rng.IntN(60) {
			bids = append(bids, floe.Record{Value: fmt.Appendf(nil, "B,%d,%d,%d,Apple,https://x,%d", rng.IntN(9), rng.IntN(9), rng.IntN(5), i)})
			counts = append(counts, floe.Record{Value: fmt.Appendf(nil, "10000,%d,%d", i, rng.IntN(4))})
		}
		chunk := 1 + rng.IntN(10)
		for _, q := range []struct {
			name string
			fn   floe.AggregateFunc[best]
			proc func([]byte, floe.Window, []floe.Record, floe.Emitter) error
			recs []floe.Record
		}{
			{"max-bids", bestBy(3, 1, 3, maxBidsResult), maxBid, bids},
			{"top-counts", bestBy(2, 0, 2, topCountsResult), hotItems, counts},
		} {
			got, err := runBest(t, q.fn, q.recs, chunk)
			if err != nil {
				t.Fatal(err)
			}
			var want emitted
			if err := q.proc(nil, floe.Window{Start: 0, End: 10_000}, q.recs, &want); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("run %d, %s in chunks of %d:\ngot  %q\nwant %q", run, q.name, chunk, got, want)
			}
		}
	}
}

// TestMaxBidsFailsOnAMalformedBid checks that a bid without a price fails
// the window's result, as max-bid fails, wherever it comes.
func TestMaxBidsFailsOnAMalformedBid(t *testing.T) {
	good := floe.Record{Value: []byte("B,1,2,300,Apple,https://x,5")}
	bad := floe.Record{Value: []byte("B,1,2,x3,Apple,https://x,5")}
	for _, recs := range [][]floe.Record{{bad, good}, {good, bad}, {good, good, bad, good}} {
		for chunk := 1; chunk <= len(recs); chunk++ {
			if _, err := runBest(t, bestBy(3, 1, 3, maxBidsResult), recs, chunk); !errors.Is(err, errEvent) {
				t.Errorf("%d records in chunks of %d: %v, want errEvent", len(recs), chunk, err)
			}
		}
	}
}
