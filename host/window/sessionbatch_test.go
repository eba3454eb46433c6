package window

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// naivePending is a pending session with its records in a slice of its
// own, as first written.
type naivePending struct {
	W      W
	stored []session
	elems  []Elem
}

// mergeNaive is keySessions.add as first written: a new pending session
// takes in every session w overlaps, and the list is sorted again.
func mergeNaive(list []naivePending, w W, e Elem) []naivePending {
	p := naivePending{W: w}
	var keep []naivePending
	for _, x := range list {
		if !overlaps(x.W, w) {
			keep = append(keep, x)
			continue
		}
		p.W.Start, p.W.End = min(p.W.Start, x.W.Start), max(p.W.End, x.W.End)
		p.stored = append(slices.Clip(p.stored), x.stored...)
		p.elems = append(slices.Clip(p.elems), x.elems...)
	}
	p.elems = append(p.elems, e)
	keep = append(keep, p)
	slices.SortFunc(keep, func(a, b naivePending) int {
		if a.W.Start != b.W.Start {
			return cmpInt(a.W.Start, b.W.Start)
		}
		return cmpInt(a.W.End, b.W.End)
	})
	return keep
}

// TestKeySessionsAddMatchesNaive checks that merging in place ends with
// the same sessions, stored sessions and records, in the same order, as
// merging into a new session, for random records over stored sessions.
func TestKeySessionsAddMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for run := range 500 {
		const gap = 10
		var stored []pending
		var naive []naivePending
		for s := int64(rng.IntN(20)); s < 300; s += gap + 1 + int64(rng.IntN(40)) {
			w := W{s, s + gap + int64(rng.IntN(20))}
			ss := []session{{W: w, Val: []byte(w.String())}}
			stored = append(stored, pending{W: w, stored: ss})
			naive = append(naive, naivePending{W: w, stored: ss})
			s = w.End
		}
		var arena elemArena
		arena.reset(30)
		k := &keySessions{list: stored, arena: &arena}
		for i := range 1 + rng.IntN(30) {
			ts := int64(rng.IntN(320))
			e := Elem{Value: fmt.Appendf(nil, "r%d", i), Timestamp: ts}
			k.add(W{ts, ts + gap}, e)
			naive = mergeNaive(naive, W{ts, ts + gap}, e)
			got := make([]naivePending, len(k.list))
			for i, p := range k.list {
				got[i] = naivePending{W: p.W, stored: p.stored}
				if p.elems.n > 0 {
					got[i].elems = arena.flatten(p.elems)
				}
			}
			if got, want := fmt.Sprint(got), fmt.Sprint(naive); got != want {
				t.Fatalf("run %d, record %d at %d:\nin place %s\nnaive    %s", run, i, ts, got, want)
			}
		}
	}
}
