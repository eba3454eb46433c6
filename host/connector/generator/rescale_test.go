package generator

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

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

// TestRescaledSequenceEmitsEachNumberOnce runs a bounded sequence at each
// parallelism of a chain for a random number of batches per instance,
// redistributes the Positions with EvenSplit to the next parallelism and
// Seeks fresh instances there; the last parallelism runs to the end. The
// numbers emitted over all runs must be 0..count-1, each exactly once.
func TestRescaledSequenceEmitsEachNumberOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, count := range []int64{1, 2, 7, 100, 1001} {
		for _, chain := range rescales {
			seen := make([]int, count)
			for _, v := range runRescaled(t, r, Config{Count: count}, chain) {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n >= int(count) {
					t.Fatalf("count %d, parallelisms %v: emitted %q", count, chain, v)
				}
				seen[n]++
			}
			for v, times := range seen {
				if times != 1 {
					t.Fatalf("count %d, parallelisms %v: %d emitted %d times", count, chain, v, times)
				}
			}
		}
	}
}

// TestRescaledRandomContinuesEachStream checks that a random generator run
// through a chain of parallelisms emits exactly the records its first
// parallelism would have emitted without rescaling.
func TestRescaledRandomContinuesEachStream(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	cfg := Config{Kind: KindRandom, Count: 500, Keys: 1 << 40, Size: 20, Seed: 3}
	for _, chain := range rescales {
		var want []string
		for i := range chain[0] {
			want = append(want, drain(t, cfg, connector.SplitInfo{Subtask: i, Parallelism: chain[0]}, 50)...)
		}
		got := runRescaled(t, r, cfg, chain)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("parallelisms %v: emitted (sorted)\n%q\nwant\n%q", chain, got, want)
		}
	}
}

// TestRescaledUnboundedSequenceAdvancesEverySplit runs an unbounded sequence
// at parallelism 3, rescales it to 2 and then to 1, and checks after each run
// that each residue class modulo 3 has been emitted as a prefix, without gap
// or repeat, and that each grew at every parallelism: an instance with
// several unbounded splits serves them all.
func TestRescaledUnboundedSequenceAdvancesEverySplit(t *testing.T) {
	var emitted []string
	var states [][][]byte
	prev := make([]int, 3)
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
			got, err := connectortest.Take(context.Background(), src, 7, 12)
			if err != nil {
				t.Fatal(err)
			}
			emitted, lists[i] = append(emitted, got...), position(t, src)
		}
		states = lists
		lens := residuePrefixes(t, emitted, 3)
		for j := range lens {
			if lens[j] <= prev[j] {
				t.Errorf("at parallelism %d residue class %d stayed at %d numbers", p, j, lens[j])
			}
		}
		prev = lens
	}
}

// residuePrefixes checks that values, as a set, are for each j < n the first
// few numbers congruent to j modulo n, each once, and returns how many there
// are of each class.
func residuePrefixes(t *testing.T, values []string, n int) []int {
	t.Helper()
	seen := map[int]bool{}
	lens := make([]int, n)
	for _, s := range values {
		v, err := strconv.Atoi(s)
		if err != nil || seen[v] {
			t.Fatalf("value %q unreadable or repeated", s)
		}
		seen[v] = true
		lens[v%n]++
	}
	for v := range seen {
		if v >= n && !seen[v-n] {
			t.Fatalf("%d emitted but not %d", v, v-n)
		}
	}
	return lens
}

// TestSeekToNoSplit checks that an instance given no split ends at once if
// the generator is bounded, and idles if it is not.
func TestSeekToNoSplit(t *testing.T) {
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, count := range []int64{0, 10} {
		clock := connectortest.NewFakeClock(start)
		src := open(t, Config{Count: count, Clock: clock}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
		if err := src.Seek([][]byte{}); err != nil {
			t.Fatal(err)
		}
		var b record.Batch
		err := src.Next(context.Background(), &b, 10)
		waited := clock.Now().Sub(start)
		switch {
		case b.Len() != 0:
			t.Errorf("count %d: emitted %d records without a split", count, b.Len())
		case count == 0 && (err != nil || waited <= 0 || waited > 100*time.Millisecond):
			t.Errorf("count %d: Next = %v after %v, want nil after a short wait", count, err, waited)
		case count > 0 && err == nil:
			t.Errorf("count %d: Next = nil, want io.EOF", count)
		}
		if pos := position(t, src); pos == nil || len(pos) != 0 {
			t.Errorf("count %d: Position = %#v, want an empty, non-nil list", count, pos)
		}
	}
}

// runRescaled runs cfg at each parallelism of chain in turn, as described at
// TestRescaledSequenceEmitsEachNumberOnce, and returns every value emitted.
func runRescaled(t *testing.T, r *rand.Rand, cfg Config, chain []int) []string {
	t.Helper()
	ctx := context.Background()
	var emitted []string
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
			var got []string
			var err error
			if step == len(chain)-1 {
				got, err = connectortest.Drain(ctx, src, 1+r.IntN(9))
			} else {
				got, err = connectortest.Take(ctx, src, 1+r.IntN(9), r.IntN(6))
			}
			if err != nil {
				t.Fatal(err)
			}
			emitted, lists[i] = append(emitted, got...), position(t, src)
		}
		states = lists
	}
	return emitted
}
