// Package keyrank sorts byte-string keys that share long prefixes, as the
// keys of keyed state do: two bytes of key group, then a namespace, then
// the user's key. A comparison sort of such keys compares the shared bytes
// again and again, and each comparison follows two pointers to keys that no
// CPU cache holds. A Ranker gives each key a 64-bit rank instead, built
// from the bytes that tell the keys apart, so that a sort compares ranks
// held beside its items and compares whole keys only when ranks tie.
package keyrank

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// buckets is the number of two-byte prefixes: the rank's top 16 bits.
const buckets = 1 << 16

// smallSort is the most items Sort sorts whole. NB: the buckets' pass
// walks all 65,536 counts, which cost more than the sort itself for a few
// items: a store scanned after every record (a join's state) writes back
// a handful of dirty keys each time, and that walk was half the CPU of
// Nexmark q3 in SQL (RATIONALE.md).
const smallSort = 256

// windowBytes is how many bytes after a bucket's common prefix go into a
// rank, below the bucket.
const windowBytes = 6

// Ranker computes ranks. Its zero value is ready; it keeps its tables for
// the next call, so that ranking the keys of each write-back or checkpoint
// allocates nothing after the first.
type Ranker struct {
	// first is, per bucket, 1 + the index of the first key seen in it,
	// or 0; lcp is the bucket's common prefix length so far.
	first []int32
	lcp   []int32
	used  []uint16 // used lists the buckets seen, to reset them.
}

// Rank calls set(i, rank) for every i < n with the rank of key(i), such
// that key(i) < key(j) implies a rank of i at most that of j: sorting by
// rank, and by the keys themselves where ranks are equal, sorts by key.
// key(i) must return the same bytes on each call.
//
// A rank is the key's first two bytes (its key group, for state keys),
// then the six bytes that follow the longest prefix shared by every key
// with those first two bytes. Keys shorter than a field count as padded
// with zeros, which keeps the order. NB: keys of state that differ first
// within those six bytes, as hashed or counted keys do, almost never tie.
func (r *Ranker) Rank(n int, key func(i int) []byte, set func(i int, rank uint64)) {
	if r.first == nil {
		r.first, r.lcp = make([]int32, buckets), make([]int32, buckets)
	}
	for i := range n {
		k := key(i)
		b := bucket(k)
		if r.first[b] == 0 {
			r.first[b], r.lcp[b] = int32(i+1), int32(len(k))
			r.used = append(r.used, b)
			continue
		}
		f := key(int(r.first[b] - 1))
		r.lcp[b] = int32(commonPrefix(f[:r.lcp[b]], k))
	}
	for i := range n {
		k := key(i)
		b := bucket(k)
		set(i, uint64(b)<<48|window(k, int(r.lcp[b])))
	}
	for _, b := range r.used {
		r.first[b] = 0
	}
	r.used = r.used[:0]
}

// bucket returns the first two bytes of k, padded with zeros.
func bucket(k []byte) uint16 {
	switch len(k) {
	case 0:
		return 0
	case 1:
		return uint16(k[0]) << 8
	}
	return binary.BigEndian.Uint16(k)
}

// window returns windowBytes of k from offset off, padded with zeros, as a
// big-endian number.
func window(k []byte, off int) uint64 {
	var buf [8]byte
	if off < len(k) {
		copy(buf[:windowBytes], k[off:])
	}
	return binary.BigEndian.Uint64(buf[:]) >> (8 * (8 - windowBytes))
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// Sort sorts s by compare, which must order items by rank first (what Rank
// gave their keys); rank(x) is x's rank. It first moves the items to their
// buckets (a rank's top 16 bits) in place, then sorts each bucket on its
// own: a bucket of a checkpoint's delta, a key group's share, stays in the
// CPU cache while it is sorted, where a sort of the whole slice would not.
// r lends its tables. A slice of at most smallSort items is sorted whole.
func Sort[T any](r *Ranker, s []T, rank func(*T) uint64, compare func(a, b T) int) {
	if len(s) <= smallSort {
		slices.SortFunc(s, compare)
		return
	}
	if r.first == nil {
		r.first, r.lcp = make([]int32, buckets), make([]int32, buckets)
	}
	// NB: first is all zero between calls and lcp holds nothing that
	// lasts; they serve here as each bucket's count and next free place.
	count, next := r.first, r.lcp
	for i := range s {
		count[rank(&s[i])>>48]++
	}
	var used []uint16
	var ends []int
	pos := 0
	for b, n := range count {
		if n > 0 {
			used = append(used, uint16(b))
			next[b] = int32(pos)
			pos += int(n)
			ends = append(ends, pos)
			count[b] = 0
		}
	}
	for j, b := range used {
		for end := ends[j]; int(next[b]) < end; {
			i := int(next[b])
			d := uint16(rank(&s[i]) >> 48)
			if d == b {
				next[b]++
				continue
			}
			s[i], s[next[d]] = s[next[d]], s[i]
			next[d]++
		}
	}
	lo := 0
	for j, b := range used {
		next[b] = 0
		slices.SortFunc(s[lo:ends[j]], compare)
		lo = ends[j]
	}
}
