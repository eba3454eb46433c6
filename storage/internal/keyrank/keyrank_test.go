package keyrank

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// ranked is a key and its rank.
type ranked struct {
	rank uint64
	key  []byte
}

// sortByRank sorts keys with Sort, by rank and then by key, as a user of
// Ranker does.
func sortByRank(r *Ranker, keys [][]byte) [][]byte {
	items := make([]ranked, len(keys))
	r.Rank(len(keys), func(i int) []byte { return keys[i] }, func(i int, v uint64) { items[i] = ranked{v, keys[i]} })
	Sort(r, items, func(x *ranked) uint64 { return x.rank }, func(a, b ranked) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return bytes.Compare(a.key, b.key)
	})
	out := make([][]byte, len(keys))
	for i, x := range items {
		out[i] = x.key
	}
	return out
}

// TestRankOrder checks that sorting by rank sorts by key, for keys laid out
// as state keys and for short, empty, prefix and zero-byte keys, with one
// Ranker reused across sets.
func TestRankOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var r Ranker
	sets := map[string][][]byte{
		"edge": {nil, {}, {0}, {0, 0}, {0, 0, 0}, {1}, {0, 1}, {1, 0}, {0xff}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
			[]byte("ab"), []byte("abc"), []byte("abcdefghij"), []byte("abcdefghik"), []byte("abcdefgh"), []byte("abcdefgh\x00")},
	}
	var state [][]byte
	for i := range 5000 {
		k := []byte{0, byte(rng.IntN(4))}
		k = append(k, "\x0ccount/counts\x09"...)
		k = fmt.Appendf(k, "w%08x", uint32(i)*0x9e3779b1)
		state = append(state, k)
	}
	// Keys that tie on their rank: they differ only past the window.
	for i := range 300 {
		state = append(state, fmt.Appendf([]byte{0, 9}, "samesamesame%03d", rng.IntN(50)+i%7))
	}
	sets["state"] = state
	sets["few"] = state[:smallSort] // sorted whole, not by buckets
	var random [][]byte
	for range 5000 {
		k := make([]byte, rng.IntN(12))
		for j := range k {
			k[j] = byte(rng.IntN(3))
		}
		random = append(random, k)
	}
	sets["random"] = random
	for name, keys := range sets {
		for pass := range 2 {
			got := sortByRank(&r, slices.Clone(keys))
			want := slices.SortedFunc(slices.Values(keys), bytes.Compare)
			if !slices.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("%s, pass %d: sorted by rank:\n%q\nwant\n%q", name, pass, got, want)
			}
		}
	}
}

// TestRankDistinguishes checks that keys differing just after their
// bucket's shared prefix get distinct ranks, which is what makes the sort
// cheap.
func TestRankDistinguishes(t *testing.T) {
	keys := [][]byte{[]byte("\x00\x01ns/key-aaaa"), []byte("\x00\x01ns/key-baaa"), []byte("\x00\x01ns/key-abaa")}
	rank := make([]uint64, len(keys))
	var r Ranker
	r.Rank(len(keys), func(i int) []byte { return keys[i] }, func(i int, v uint64) { rank[i] = v })
	if rank[0] >= rank[2] || rank[2] >= rank[1] {
		t.Fatalf("ranks %x, want strictly increasing for keys 0, 2, 1", rank)
	}
}

func TestCommonPrefix(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 0}, {"abc", "abd", 2}, {"abcdefghijk", "abcdefghijk", 11},
		{"abcdefghijk", "abcdefghXjk", 8}, {"abcdefgXijk", "abcdefghijk", 7}, {"abcdefghi", "abcdefghij", 9}} {
		if got := commonPrefix([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("commonPrefix(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
