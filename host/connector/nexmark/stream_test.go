package nexmark

import (
	"cmp"
	"context"
	"errors"
	"github.com/floe-stream/floe/host/record"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/connectortest"
)

// TestThreeStreamsUnionToTheMixedStream reads the persons, the auctions and
// the bids of a stream each from sources of their own, as a job reads three
// sources, and checks that each subtask emits exactly the events of its
// kind that the mixed source's same subtask emits, in the same order with
// the same timestamps, so that the union of the three is the mixed stream.
func TestThreeStreamsUnionToTheMixedStream(t *testing.T) {
	for _, cfg := range []Config{{Count: 1}, {Count: 1000}, {Count: 5003, EventsPerSecond: 7, Seed: 3}} {
		for _, par := range []int{1, 2, 3, 50, 51} {
			var mixed, union []rec
			for i := range par {
				info := connector.SplitInfo{Subtask: i, Parallelism: par}
				all := drainRecords(t, open(t, cfg, info), 64)
				mixed = append(mixed, all...)
				for _, kind := range []byte{'P', 'A', 'B'} {
					c := cfg
					c.Stream = kind
					got := drainRecords(t, open(t, c, info), 1+i%64)
					want := slices.DeleteFunc(slices.Clone(all), func(r rec) bool { return r.value[0] != kind })
					if !slices.Equal(got, want) {
						t.Fatalf("%+v, subtask %d of %d: stream %c has %d events, want the mixed stream's %d of that kind", c, i, par, kind, len(got), len(want))
					}
					union = append(union, got...)
				}
			}
			byTime := func(a, b rec) int { return cmp.Or(cmp.Compare(a.ts, b.ts), strings.Compare(a.value, b.value)) }
			slices.SortFunc(mixed, byTime)
			slices.SortFunc(union, byTime)
			if int64(len(mixed)) != cfg.Count || !slices.Equal(union, mixed) {
				t.Errorf("%+v at parallelism %d: the three streams hold %d events, the mixed one %d (count %d), or they differ", cfg, par, len(union), len(mixed), cfg.Count)
			}
		}
	}
}

// TestOneKindResumesWithoutLossOrDuplication restores a source of bids
// from the position it reached after a few batches into an instance of
// another subtask and checks that together they emit the bids of the first
// subtask's share once each.
func TestOneKindResumesWithoutLossOrDuplication(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []byte{'P', 'A', 'B'} {
		cfg := Config{Count: 2003, Stream: kind}
		info := connector.SplitInfo{Subtask: 1, Parallelism: 3}
		want := drain(t, cfg, info, 1000)
		for _, calls := range []int{0, 1, 5, 40} {
			src := open(t, cfg, info)
			first, err := connectortest.Take(ctx, src, 7, calls)
			if err != nil {
				t.Fatal(err)
			}
			again := open(t, cfg, connector.SplitInfo{Subtask: 0, Parallelism: 2})
			if err := again.Seek(position(t, src)); err != nil {
				t.Fatal(err)
			}
			rest, err := connectortest.Drain(ctx, again, 10)
			if err != nil {
				t.Fatal(err)
			}
			if got := append(first, rest...); !slices.Equal(got, want) {
				t.Errorf("stream %c after %d calls: resumed stream has %d events, want %d", kind, calls, len(got), len(want))
			}
		}
	}
}

func TestUnknownStreamRefused(t *testing.T) {
	_, err := NewSource(Config{Stream: 'X'}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err == nil || !strings.Contains(err.Error(), "stream 'X'") {
		t.Errorf("NewSource with stream X = %v, want an error naming it", err)
	}
}

// TestOneKindBatchSizes checks how many records a source of one kind puts
// in a batch: unpaced, every batch but the last is at least half full;
// paced, a batch takes at most max event numbers, so it holds no more of
// the kind than max numbers can (of every 50, 1 person, 3 auctions).
func TestOneKindBatchSizes(t *testing.T) {
	const max = 64
	for _, c := range []struct {
		kind byte
		per  int // events of the kind per 50
	}{{'P', 1}, {'A', 3}} {
		unpaced := batchSizes(t, open(t, Config{Count: 200_000, Stream: c.kind}, connector.SplitInfo{Subtask: 0, Parallelism: 1}), max)
		// NB: the call that takes the last numbers may return a short
		// batch, and the next one an empty batch with io.EOF.
		for i, n := range unpaced[:len(unpaced)-2] {
			if n < max/2 {
				t.Fatalf("stream %c unpaced: batch %d of %d holds %d records, want at least %d", c.kind, i, len(unpaced), n, max/2)
			}
		}
		paced := batchSizes(t, open(t, Config{Count: 20_000, Stream: c.kind, Rate: 1e9}, connector.SplitInfo{Subtask: 0, Parallelism: 1}), max)
		if most := slices.Max(paced); most > (max/50+1)*c.per {
			t.Errorf("stream %c paced: a batch holds %d records, more than %d event numbers can", c.kind, most, max)
		}
	}
}

// batchSizes reads src to its end in batches of at most max and returns
// the number of records of each.
func batchSizes(t *testing.T, src connector.Source, max int) []int {
	t.Helper()
	var sizes []int
	for {
		var b record.Batch
		err := src.Next(context.Background(), &b, max)
		if b.Len() > max {
			t.Fatalf("Next returned %d records, max %d", b.Len(), max)
		}
		sizes = append(sizes, b.Len())
		if errors.Is(err, io.EOF) {
			return sizes
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
