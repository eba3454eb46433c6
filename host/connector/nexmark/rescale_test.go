package nexmark

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/connectortest"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/ckmeta"
)

// rescales are chains of parallelisms a job runs at, one after another,
// each restored from the Positions of the one before redistributed with
// ckmeta.EvenSplit.
var rescales = [][]int{
	{3, 5}, {5, 1}, {2, 4}, {4, 1}, {1, 3}, {4, 4}, {7, 2}, {3, 5, 2}, {2, 7, 3, 1}, {1, 16, 1},
}

// TestRescaledSourceEmitsEachEventOnce runs a bounded source at each
// parallelism of a chain for a random number of batches per instance,
// redistributes the Positions with EvenSplit to the next parallelism and
// Seeks fresh instances there; the last parallelism runs to the end. Over
// all runs, the records must be events 0 to count-1, each exactly once with
// its timestamp, and every instance's records must come in timestamp order.
func TestRescaledSourceEmitsEachEventOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, count := range []int64{1, 2, 7, 100, 1001} {
		cfg := Config{Count: count, EventsPerSecond: 50}
		want := wholeStream(cfg)
		for _, chain := range rescales {
			got := runRescaled(t, r, cfg, chain)
			slices.SortFunc(got, compareRecs)
			if !slices.Equal(got, want) {
				t.Fatalf("count %d, parallelisms %v: %d records do not match the %d events of the stream", count, chain, len(got), len(want))
			}
		}
	}
}

// TestRescaledUnboundedSourceAdvancesEverySplit runs an unbounded source at
// parallelism 3, rescales it to 2 and then to 1, and checks after each run
// that every residue class modulo 3 has been emitted as a prefix, without
// gap or repeat, and that the least advanced class grew. An instance merges
// its splits by event number, so a split that lags catches up first and
// none starves: the last run, long enough to catch up, must leave the
// stream emitted up to some event with nothing after it.
func TestRescaledUnboundedSourceAdvancesEverySplit(t *testing.T) {
	g := NewGenerator(0, 0)
	index := map[string]int64{}
	for n := range int64(3000) {
		line, _ := g.Append(nil, n)
		index[string(line)] = n
	}
	seen := map[int64]bool{}
	var states [][][]byte
	prev := 0
	for step, p := range []int{3, 2, 1} {
		if step > 0 {
			states = ckmeta.EvenSplit(states, p)
		}
		lists := make([][][]byte, p)
		for i := range p {
			src := open(t, Config{}, connector.SplitInfo{Subtask: i, Parallelism: p})
			if states != nil {
				if err := src.Seek(states[i]); err != nil {
					t.Fatal(err)
				}
			}
			got, err := connectortest.Take(context.Background(), src, 7, 12*(step+1))
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range got {
				n, ok := index[v]
				if !ok || seen[n] {
					t.Fatalf("at parallelism %d: %q unknown or repeated", p, v)
				}
				seen[n] = true
			}
			lists[i] = position(t, src)
		}
		states = lists
		lens := make([]int, 3)
		for n := range seen {
			if n >= 3 && !seen[n-3] {
				t.Fatalf("event %d emitted but not %d", n, n-3)
			}
			lens[n%3]++
		}
		if least := slices.Min(lens); least <= prev {
			t.Errorf("at parallelism %d the least advanced residue class stayed at %d events", p, least)
		} else {
			prev = least
		}
	}
	if len(seen) != 3*prev {
		t.Errorf("after the last run %d events emitted, want a prefix of the stream: %d of each class", len(seen), prev)
	}
}

// runRescaled runs cfg at each parallelism of chain in turn, as described at
// TestRescaledSourceEmitsEachEventOnce, and returns every record emitted.
func runRescaled(t *testing.T, r *rand.Rand, cfg Config, chain []int) []rec {
	t.Helper()
	var emitted []rec
	var states [][][]byte
	for step, p := range chain {
		if step > 0 {
			states = ckmeta.EvenSplit(states, p)
		}
		lists := make([][][]byte, p)
		for i := range p {
			src := open(t, cfg, connector.SplitInfo{Subtask: i, Parallelism: p})
			if states != nil {
				if err := src.Seek(states[i]); err != nil {
					t.Fatal(err)
				}
			}
			calls := -1 // to the end
			if step < len(chain)-1 {
				calls = r.IntN(6)
			}
			got := takeRecords(t, src, 1+r.IntN(9), calls)
			if !slices.IsSortedFunc(got, func(a, b rec) int { return int(a.ts - b.ts) }) {
				t.Fatalf("parallelisms %v: subtask %d of %d emitted out of timestamp order", chain, i, p)
			}
			emitted, lists[i] = append(emitted, got...), position(t, src)
		}
		states = lists
	}
	return emitted
}

// takeRecords calls Next at most calls times, or until io.EOF if calls < 0,
// with batches of at most max records, and returns the records.
func takeRecords(t *testing.T, src connector.Source, max, calls int) []rec {
	t.Helper()
	if calls < 0 {
		return drainRecords(t, src, max)
	}
	var out []rec
	var b record.Batch
	for range calls {
		b.Reset()
		err := src.Next(context.Background(), &b, max)
		for _, r := range b.Records {
			out = append(out, rec{string(r.Value), r.Timestamp})
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// wholeStream returns the records of all of cfg's events, sorted.
func wholeStream(cfg Config) []rec {
	g := cfg.generator()
	out := make([]rec, cfg.Count)
	for n := range cfg.Count {
		line, ts := g.Append(nil, n)
		out[n] = rec{string(line), ts}
	}
	slices.SortFunc(out, compareRecs)
	return out
}

func compareRecs(a, b rec) int {
	switch {
	case a.value < b.value:
		return -1
	case a.value > b.value:
		return 1
	}
	return int(a.ts - b.ts)
}
