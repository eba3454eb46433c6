package join

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/host/window"
)

// event is one generated input record.
type event struct {
	side  Side
	key   string
	ts    int64
	value string
}

// generate returns n events over keys, out of order by up to bound.
func generate(rng *rand.Rand, n int, bound int64) []event {
	evs := make([]event, n)
	for i := range evs {
		base := int64(i) * 3
		evs[i] = event{
			side:  Side(rng.IntN(2)),
			key:   string(rune('a' + rng.IntN(3))),
			ts:    base + rng.Int64N(bound+1),
			value: strconv.Itoa(i),
		}
	}
	return evs
}

// run feeds evs through h in batches of random sizes, advancing the
// watermark after each batch to what a bounded-out-of-orderness generator
// with the given bound would emit, and finally to the end of time. It
// returns every output record and the events that were late on arrival
// (behind the watermark). after, if given, runs after each record.
func run(t *testing.T, rng *rand.Rand, h *harness, evs []event, bound int64, after ...func()) (got []string, late map[string]bool) {
	t.Helper()
	late = map[string]bool{}
	wm, maxTs := int64(math.MinInt64), int64(math.MinInt64)
	for i := 0; i < len(evs); {
		n := min(len(evs)-i, 1+rng.IntN(8))
		for _, e := range evs[i : i+n] {
			if e.ts <= wm {
				late[e.value] = true
			}
			out, err := h.feed(e.side, []string{fmt.Sprintf("%s@%d %s", e.key, e.ts, e.value)})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, lines(out)...)
			maxTs = max(maxTs, e.ts)
			for _, fn := range after {
				fn()
			}
		}
		i += n
		wm = max(wm, maxTs-bound-1)
		out, err := h.watermark(wm)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, lines(out)...)
	}
	out, err := h.watermark(math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	return append(got, lines(out)...), late
}

func lines(b *record.Batch) []string {
	var out []string
	for _, r := range b.Records {
		out = append(out, fmt.Sprintf("%s@%d %s", r.Key, r.Timestamp, r.Value))
	}
	return out
}

// TestIntervalBruteForce checks the interval join against every pair of
// the records that were not late, with input disordered by more than the
// watermark allows, so that some records are late.
func TestIntervalBruteForce(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		lower, upper := rng.Int64N(21)-10, rng.Int64N(21)-5
		if lower > upper {
			lower, upper = upper, lower
		}
		evs := generate(rng, 300, 12)
		h, err := newHarness(t, func(rows udf.MapState, q *timer.Queue) (joiner, error) {
			return NewInterval(IntervalConfig{Lower: lower, Upper: upper}, Concat{Sep: []byte("|")}, rows, q)
		})
		if err != nil {
			t.Fatal(err)
		}
		got, late := run(t, rng, h, evs, 6)
		var want []string
		for _, l := range evs {
			for _, r := range evs {
				if l.side != Left || r.side != Right || l.key != r.key || late[l.value] || late[r.value] {
					continue
				}
				if l.ts+lower <= r.ts && r.ts <= l.ts+upper {
					want = append(want, fmt.Sprintf("%s@%d %s|%s", l.key, max(l.ts, r.ts), l.value, r.value))
				}
			}
		}
		compare(t, fmt.Sprintf("seed %d [%d,%d]", seed, lower, upper), got, want)
		if h.op.Late() != int64(len(late)) {
			t.Errorf("seed %d: %d late, counted %d", seed, len(late), h.op.Late())
		}
		if h.q.Len() != 0 {
			t.Errorf("seed %d: %d timers left at the end of time", seed, h.q.Len())
		}
	}
}

// TestWindowBruteForce checks the window joins against the pairs of each
// window computed from all the input at once, with input disordered within
// what the watermark allows, so that no record is late.
func TestWindowBruteForce(t *testing.T) {
	specs := []window.Spec{
		{Kind: window.Tumbling, Size: 10},
		{Kind: window.Sliding, Size: 12, Slide: 4},
		{Kind: window.Session, Gap: 4},
	}
	for _, spec := range specs {
		for _, kind := range []Kind{Inner, LeftOuter} {
			for seed := range uint64(10) {
				rng := rand.New(rand.NewPCG(seed, 11))
				evs := generate(rng, 200, 8)
				h, err := newHarness(t, func(rows udf.MapState, q *timer.Queue) (joiner, error) {
					return NewWindow(WindowConfig{Spec: spec, Kind: kind}, Concat{Sep: []byte("|")}, rows, q)
				})
				if err != nil {
					t.Fatal(err)
				}
				got, late := run(t, rng, h, evs, 8)
				if len(late) > 0 {
					t.Fatalf("generated %d late records", len(late))
				}
				compare(t, fmt.Sprintf("%v %s seed %d", spec, kind, seed), got, bruteWindows(evs, spec, kind))
				if h.q.Len() != 0 {
					t.Errorf("%v seed %d: %d timers left at the end of time", spec, seed, h.q.Len())
				}
			}
		}
	}
}

// bruteWindows joins evs window by window.
func bruteWindows(evs []event, spec window.Spec, kind Kind) []string {
	groups := map[string]map[window.W][]event{}
	for _, e := range evs {
		if groups[e.key] == nil {
			groups[e.key] = map[window.W][]event{}
		}
		if spec.Kind != window.Session {
			for _, w := range spec.Assign(nil, e.ts) {
				groups[e.key][w] = append(groups[e.key][w], e)
			}
		}
	}
	if spec.Kind == window.Session {
		byKey := map[string][]event{}
		for _, e := range evs {
			byKey[e.key] = append(byKey[e.key], e)
		}
		for k, es := range byKey {
			slices.SortFunc(es, func(a, b event) int { return int(a.ts - b.ts) })
			var cur []event
			for i, e := range es {
				if i > 0 && e.ts-es[i-1].ts >= spec.Gap {
					groups[k][window.W{Start: cur[0].ts, End: cur[len(cur)-1].ts + spec.Gap}] = cur
					cur = nil
				}
				cur = append(cur, e)
			}
			groups[k][window.W{Start: cur[0].ts, End: cur[len(cur)-1].ts + spec.Gap}] = cur
		}
	}
	var want []string
	for k, ws := range groups {
		for w, es := range ws {
			hasRight := slices.ContainsFunc(es, func(e event) bool { return e.side == Right })
			for _, l := range es {
				if l.side != Left {
					continue
				}
				if !hasRight && kind == LeftOuter {
					want = append(want, fmt.Sprintf("%s@%d %s|", k, w.MaxTimestamp(), l.value))
				}
				for _, r := range es {
					if r.side == Right {
						want = append(want, fmt.Sprintf("%s@%d %s|%s", k, w.MaxTimestamp(), l.value, r.value))
					}
				}
			}
		}
	}
	return want
}

// compare fails unless got and want hold the same lines, as multisets.
func compare(t *testing.T, what string, got, want []string) {
	t.Helper()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: got %d records, want %d\ngot:  %.400v\nwant: %.400v", what, len(got), len(want), got, want)
	}
	if len(want) == 0 {
		t.Errorf("%s: the brute force finds no pair; the test checks nothing", what)
	}
}

// TestTumblingLateBruteForce checks a tumbling window join over input
// disordered by more than the watermark allows: a record is either in its
// one window before the window fires or late, so the output must be the
// pairs of each window among the records the late output does not hold.
func TestTumblingLateBruteForce(t *testing.T) {
	spec := window.Spec{Kind: window.Tumbling, Size: 10}
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 13))
		evs := generate(rng, 300, 12)
		h, err := newHarness(t, func(rows udf.MapState, q *timer.Queue) (joiner, error) {
			return NewWindow(WindowConfig{Spec: spec, Kind: LeftOuter, LateOutput: "late"}, Concat{Sep: []byte("|")}, rows, q)
		})
		if err != nil {
			t.Fatal(err)
		}
		var lateOut []string
		got, _ := run(t, rng, h, evs, 4, func() {
			late := h.op.SideOutput(1)
			for _, r := range late.Records {
				lateOut = append(lateOut, string(r.Value))
			}
			late.Reset()
		})
		if len(lateOut) == 0 {
			t.Fatalf("seed %d: no record was late", seed)
		}
		var onTime []event
		for _, e := range evs {
			if !slices.Contains(lateOut, e.value) {
				onTime = append(onTime, e)
			}
		}
		compare(t, fmt.Sprintf("seed %d", seed), got, bruteWindows(onTime, spec, LeftOuter))
		if h.op.Late() != int64(len(lateOut)) {
			t.Errorf("seed %d: %d in the late output, counted %d", seed, len(lateOut), h.op.Late())
		}
	}
}

// TestIntervalOwnUpperBruteForce checks an interval join whose left rows
// bound their own interval (IntervalConfig.UpperOf; some bound nothing)
// against every pair of the records that were not late, and that no row
// or timer is left once time has passed every bound.
func TestIntervalOwnUpperBruteForce(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 9))
		evs := generate(rng, 300, 12)
		until := map[string]int64{} // left value -> its own bound; absent: NULL
		for _, e := range evs {
			if e.side == Left && rng.IntN(8) > 0 {
				until[e.value] = e.ts + rng.Int64N(30) - 5
			}
		}
		upperOf := func(v []byte) (int64, bool) { u, ok := until[string(v)]; return u, ok }
		h, err := newHarness(t, func(rows udf.MapState, q *timer.Queue) (joiner, error) {
			return NewInterval(IntervalConfig{Lower: 0, Upper: 1 << 40, UpperOf: upperOf}, Concat{Sep: []byte("|")}, rows, q)
		})
		if err != nil {
			t.Fatal(err)
		}
		got, late := run(t, rng, h, evs, 6)
		var want []string
		for _, l := range evs {
			u, bounded := until[l.value]
			for _, r := range evs {
				if l.side != Left || r.side != Right || l.key != r.key || late[l.value] || late[r.value] || !bounded {
					continue
				}
				if l.ts <= r.ts && r.ts <= u {
					want = append(want, fmt.Sprintf("%s@%d %s|%s", l.key, max(l.ts, r.ts), l.value, r.value))
				}
			}
		}
		compare(t, fmt.Sprintf("seed %d", seed), got, want)
		if h.q.Len() != 0 {
			t.Errorf("seed %d: %d timers left at the end of time", seed, h.q.Len())
		}
	}
}
