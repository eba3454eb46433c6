package join

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
)

// TestOuterIntervalBruteForce checks outer interval joins, appended and
// retracting, against every pair of the records that were not late plus
// each such record of an outer side that pairs with none, alone; a
// retracting join's output is applied first (a "-" line removes one equal
// earlier line), and it must never retract a line it has not written.
func TestOuterIntervalBruteForce(t *testing.T) {
	for _, outer := range []Outer{OuterLeft, OuterRight, OuterFull} {
		for _, retract := range []bool{false, true} {
			for seed := range uint64(10) {
				rng := rand.New(rand.NewPCG(seed, 17))
				lower, upper := rng.Int64N(21)-10, rng.Int64N(21)-5
				if lower > upper {
					lower, upper = upper, lower
				}
				evs := generate(rng, 300, 12)
				cfg := IntervalConfig{Lower: lower, Upper: upper, Outer: outer, Retract: retract}
				h, err := newHarness(t, func(rows udf.MapState, q *timer.Queue) (joiner, error) {
					return NewInterval(cfg, signed{}, rows, q)
				})
				if err != nil {
					t.Fatal(err)
				}
				out, late := run(t, rng, h, evs, 6)
				what := fmt.Sprintf("outer %d retract %v seed %d [%d,%d]", outer, retract, seed, lower, upper)
				got, retracted := applyRetractions(t, what, out)
				if retract != (retracted > 0) {
					t.Errorf("%s: %d retractions", what, retracted)
				}
				compare(t, what, got, bruteOuter(evs, late, lower, upper, outer))
				if h.q.Len() != 0 {
					t.Errorf("%s: %d timers left at the end of time", what, h.q.Len())
				}
			}
		}
	}
}

// applyRetractions removes, for each line "key@ts -v", one earlier line
// with the value v, whatever its timestamp.
func applyRetractions(t *testing.T, what string, out []string) (rows []string, retracted int) {
	t.Helper()
	for _, l := range out {
		key, v, _ := strings.Cut(l, " ")
		k, _, _ := strings.Cut(key, "@")
		if v, ok := strings.CutPrefix(v, "-"); ok {
			i := slices.IndexFunc(rows, func(r string) bool {
				rk, rv, _ := strings.Cut(r, " ")
				return rv == v && strings.HasPrefix(rk, k+"@")
			})
			if i < 0 {
				t.Fatalf("%s: %q retracts a row not written", what, l)
			}
			rows = slices.Delete(rows, i, i+1)
			retracted++
			continue
		}
		rows = append(rows, l)
	}
	// NB: a lone row's line keeps its own timestamp.
	return rows, retracted
}

// bruteOuter is the outer join of the records that were not late.
func bruteOuter(evs []event, late map[string]bool, lower, upper int64, outer Outer) []string {
	var want []string
	matched := map[string]bool{}
	for _, l := range evs {
		for _, r := range evs {
			if l.side != Left || r.side != Right || l.key != r.key || late[l.value] || late[r.value] {
				continue
			}
			if l.ts+lower <= r.ts && r.ts <= l.ts+upper {
				want = append(want, fmt.Sprintf("%s@%d %s|%s", l.key, max(l.ts, r.ts), l.value, r.value))
				matched[l.value], matched[r.value] = true, true
			}
		}
	}
	for _, e := range evs {
		if late[e.value] || matched[e.value] || !outer.has(e.side) {
			continue
		}
		if e.side == Left {
			want = append(want, fmt.Sprintf("%s@%d %s|", e.key, e.ts, e.value))
		} else {
			want = append(want, fmt.Sprintf("%s@%d |%s", e.key, e.ts, e.value))
		}
	}
	return want
}

// TestOuterIntervalOwnUpperBruteForce checks outer interval joins whose
// left rows bound their own interval (IntervalConfig.UpperOf, some with
// NULL, which match nothing), appended and retracting: the state of an
// outer side's row holds its mark before the value, which UpperOf must
// not see.
func TestOuterIntervalOwnUpperBruteForce(t *testing.T) {
	for _, outer := range []Outer{OuterLeft, OuterRight, OuterFull} {
		for _, retract := range []bool{false, true} {
			for seed := range uint64(8) {
				rng := rand.New(rand.NewPCG(seed, 23))
				evs := generate(rng, 300, 12)
				until := map[string]int64{} // left value -> its own bound; absent: NULL
				for _, e := range evs {
					if e.side == Left && rng.IntN(8) > 0 {
						until[e.value] = e.ts + rng.Int64N(30) - 5
					}
				}
				upperOf := func(v []byte) (int64, bool) { u, ok := until[string(v)]; return u, ok }
				cfg := IntervalConfig{Lower: 0, Upper: 1 << 40, UpperOf: upperOf, Outer: outer, Retract: retract}
				h, err := newHarness(t, func(rows udf.MapState, q *timer.Queue) (joiner, error) {
					return NewInterval(cfg, signed{}, rows, q)
				})
				if err != nil {
					t.Fatal(err)
				}
				out, late := run(t, rng, h, evs, 6)
				what := fmt.Sprintf("outer %d retract %v seed %d", outer, retract, seed)
				got, _ := applyRetractions(t, what, out)
				var want []string
				matched := map[string]bool{}
				for _, l := range evs {
					u, bounded := until[l.value]
					for _, r := range evs {
						if l.side != Left || r.side != Right || l.key != r.key || late[l.value] || late[r.value] || !bounded {
							continue
						}
						if l.ts <= r.ts && r.ts <= u {
							want = append(want, fmt.Sprintf("%s@%d %s|%s", l.key, max(l.ts, r.ts), l.value, r.value))
							matched[l.value], matched[r.value] = true, true
						}
					}
				}
				for _, e := range evs {
					if late[e.value] || matched[e.value] || !outer.has(e.side) {
						continue
					}
					if e.side == Left {
						want = append(want, fmt.Sprintf("%s@%d %s|", e.key, e.ts, e.value))
					} else {
						want = append(want, fmt.Sprintf("%s@%d |%s", e.key, e.ts, e.value))
					}
				}
				compare(t, what, got, want)
				if h.q.Len() != 0 {
					t.Errorf("%s: %d timers left at the end of time", what, h.q.Len())
				}
			}
		}
	}
}
