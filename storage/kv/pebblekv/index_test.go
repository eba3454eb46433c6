package pebblekv

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestIndexMatchesMap adds and removes entries at random, with hashes
// drawn from few values so that runs collide, wrap around the table's end
// and share tags, and checks after every step that the index finds every
// entry a Go map holds and nothing else.
func TestIndexMatchesMap(t *testing.T) {
	for _, c := range []struct{ hashes, entries int }{{3, 100}, {50, 1000}, {1 << 20, 3000}} {
		hashes := c.hashes
		t.Run(fmt.Sprintf("hashes=%d", hashes), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(hashes)))
			var x index
			entries := make([]entry, c.entries)
			want := map[string]int32{}
			var free, used []int32
			for i := range entries {
				free = append(free, int32(i))
			}
			for step := range 20_000 {
				if len(free) > 0 && (len(used) == 0 || rng.IntN(3) > 0) {
					k := rng.IntN(len(free))
					s := free[k]
					free = append(free[:k], free[k+1:]...)
					// The high half of a hash picks its first word: near
					// the top, a run wraps around to the table's start.
					h := ^uint64(rng.IntN(hashes)) << 20
					entries[s] = entry{key: fmt.Sprintf("k%d", step), hash: h, slot: s}
					x.add(h, s, entries)
					want[entries[s].key] = s
					used = append(used, s)
				} else {
					k := rng.IntN(len(used))
					s := used[k]
					used = append(used[:k], used[k+1:]...)
					x.remove(entries[s].hash, s)
					delete(want, entries[s].key)
					free = append(free, s)
				}
				if step%97 == 0 || hashes == 3 {
					checkIndex(t, &x, entries, want)
				}
			}
		})
	}
}

func checkIndex(t *testing.T, x *index, entries []entry, want map[string]int32) {
	t.Helper()
	if x.n != len(want) {
		t.Fatalf("index counts %d entries, want %d", x.n, len(want))
	}
	for k, s := range want {
		if got := x.find(entries[s].hash, k, entries); got != s {
			t.Fatalf("find(%q) = %d, want %d", k, got, s)
		}
		if got := x.find(entries[s].hash, k+"x", entries); got != -1 {
			t.Fatalf("find(%q) = %d, want -1", k+"x", got)
		}
	}
}
