package window

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// mergeNaive is keySessions.add as first written: a new pending session
// takes in every session w overlaps, and the list is sorted again.
func mergeNaive(list []pending, w W, e Elem) []pending {
	p := pending{W: w}
	var keep []pending
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
	slices.SortFunc(keep, func(a, b pending) int {
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
		for s := int64(rng.IntN(20)); s < 300; s += gap + 1 + int64(rng.IntN(40)) {
			w := W{s, s + gap + int64(rng.IntN(20))}
			stored = append(stored, pending{W: w, stored: []session{{W: w, Val: []byte(w.String())}}})
			s = w.End
		}
		k := &keySessions{list: slices.Clone(stored)}
		naive := slices.Clone(stored)
		for i := range 1 + rng.IntN(30) {
			ts := int64(rng.IntN(320))
			e := Elem{Value: fmt.Appendf(nil, "r%d", i), Timestamp: ts}
			k.add(W{ts, ts + gap}, e)
			naive = mergeNaive(naive, W{ts, ts + gap}, e)
			if got, want := fmt.Sprint(k.list), fmt.Sprint(naive); got != want {
				t.Fatalf("run %d, record %d at %d:\nin place %s\nnaive    %s", run, i, ts, got, want)
			}
		}
	}
}
