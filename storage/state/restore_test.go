package state_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/snapshot"
	"github.com/floe-stream/floe/storage/state"
)

const restoreGroups = 32

// TestRestoreReadsEveryKey checkpoints a backend (full, then a delta with
// overwrites, deletes and cleared maps), restores the chain into a fresh
// store of each kind, whole and for a sub-range as a rescale does, reads
// every key back, and then checkpoints the restored backend and restores
// that chain again: the delta taken after a restore must hold what
// changed since it, on top of the restored files.
func TestRestoreReadsEveryKey(t *testing.T) {
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			src := state.New(s.open(t))
			defer src.Close()
			src.TrackChanges()
			write(t, src, 0, 600)
			full := snap(t, src, true)
			write(t, src, 1, 300)
			delta := snap(t, src, false)
			all := keygroup.Range{Start: 0, End: restoreGroups}
			for _, rng := range []keygroup.Range{all, {Start: 5, End: 19}} {
				dst := state.New(s.open(t))
				restoreChain(t, dst, rng, full, delta)
				if got, want := dumpRange(t, dst, all), dumpRange(t, src, rng); got != want {
					t.Errorf("restored %v:\n%s\nwant:\n%s", rng, got, want)
				}
				wantGets(t, dst, src, rng)
				dst.TrackChanges()
				write(t, dst, 2, 200)
				delta2 := snap(t, dst, false)
				again := state.New(s.open(t))
				restoreChain(t, again, all, full, delta, delta2)
				if rng != all {
					// The sub-range's chain is the old files read for
					// its key groups only, then its own delta.
					must(t, again.Close())
					again = state.New(s.open(t))
					restoreChain(t, again, rng, full, delta)
					restoreChain(t, again, all, delta2)
				}
				if got, want := dumpRange(t, again, all), dumpRange(t, dst, all); got != want {
					t.Errorf("restored %v, written and restored again:\n%s\nwant:\n%s", rng, got, want)
				}
				must(t, dst.Close())
				must(t, again.Close())
			}
		})
	}
}

// write makes n changes of round to b's value and map state.
func write(t *testing.T, b *state.Backend, round, n int) {
	t.Helper()
	v, m := mustValue(t, b, "a/v"), mustMap(t, b, "a/m")
	for i := range n {
		k := fmt.Appendf(nil, "k%d", (i*7+round*13)%500)
		kg := keygroup.Of(k, restoreGroups)
		switch {
		case round > 0 && i%9 == 0:
			must(t, v.Delete(kg, k))
		case round > 0 && i%11 == 0:
			must(t, m.Clear(kg, k))
		case i%2 == 0:
			must(t, v.Put(kg, k, fmt.Appendf(nil, "r%d-%d", round, i)))
		default:
			must(t, m.Put(kg, k, fmt.Appendf(nil, "mk%d", i%4), fmt.Append(nil, round)))
		}
	}
}

func snap(t *testing.T, b *state.Backend, full bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := snapshot.NewWriter(&buf)
	must(t, b.WriteSnapshot(w, full))
	must(t, w.Close())
	return buf.Bytes()
}

func restoreChain(t *testing.T, b *state.Backend, rng keygroup.Range, files ...[]byte) {
	t.Helper()
	for _, f := range files {
		if _, err := b.Restore(bytes.NewReader(f), int64(len(f)), rng); err != nil {
			t.Fatal(err)
		}
	}
}

// dumpRange renders b's entries in rng, one a line, and checks that there are
// some.
func dumpRange(t *testing.T, b *state.Backend, rng keygroup.Range) string {
	t.Helper()
	var out strings.Builder
	must(t, b.ScanRange(rng, func(kg uint16, ns string, key, rest, val []byte) error {
		fmt.Fprintf(&out, "%d %s %s %s=%x\n", kg, ns, key, rest, val)
		return nil
	}))
	if out.Len() == 0 {
		t.Fatalf("no state in %v", rng)
	}
	return out.String()
}

// wantGets reads every key of value and map state through Get, which a
// cache or a key filter that missed restored keys would answer wrongly:
// in rng, got must answer as want; outside, it must have nothing.
func wantGets(t *testing.T, got, want *state.Backend, rng keygroup.Range) {
	t.Helper()
	gv, gm := mustValue(t, got, "a/v"), mustMap(t, got, "a/m")
	wv, wm := mustValue(t, want, "a/v"), mustMap(t, want, "a/m")
	for i := range 500 {
		k := fmt.Appendf(nil, "k%d", i)
		kg := keygroup.Of(k, restoreGroups)
		in := int(kg) >= rng.Start && int(kg) < rng.End
		g, gok, err := gv.Get(kg, k)
		must(t, err)
		w, wok, err := wv.Get(kg, k)
		must(t, err)
		if gok != (wok && in) || (in && string(g) != string(w)) {
			t.Fatalf("value %s (group %d, in %v) = %q, %v; want %q, %v", k, kg, in, g, gok, w, wok)
		}
		for j := range 4 {
			mk := fmt.Appendf(nil, "mk%d", j)
			g, gok, err := gm.Get(kg, k, mk)
			must(t, err)
			w, wok, err := wm.Get(kg, k, mk)
			must(t, err)
			if gok != (wok && in) || (in && string(g) != string(w)) {
				t.Fatalf("map %s/%s (group %d) = %q, %v; want %q, %v", k, mk, kg, g, gok, w, wok)
			}
		}
	}
}
