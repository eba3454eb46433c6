package pebblekv

import (
	"hash/maphash"
	"math/bits"
)

// Sizing of the key filter.
const (
	// filterBitsPerKey is the size of the filter per key it holds. With
	// filterProbes bits set per key in a 512-bit block, one absent key in
	// about 3,000 is reported as maybe present by each full part. NB: a
	// key may be present if any part says so, so the parts' rates add up:
	// at 14 bits and 10 probes, 20M keys in 5 parts answered wrongly for
	// 0.76% of absent keys, each a needless Pebble read (11% of the CPU of
	// a 20M-key keyed count); at 20 bits and 14 probes, 0.09%
	// (RATIONALE.md). A budget's filter still turns off at the same number
	// of keys: its parts' capacities double, and 20 bits per key still fit
	// the part that 14 bits did at the budgets Budget gives.
	filterBitsPerKey = 20
	filterProbes     = 14
	// filterFirstKeys is the capacity of the first part of the filter;
	// each further part doubles the capacity of the one before.
	filterFirstKeys = 1 << 20
	// blockBits is the size of a filter block: one 64-byte cache line, so
	// that a probe of a part costs one memory access.
	blockBits = 512
	// probeBits is the width of one probe's bit position in a block.
	probeBits = 9
)

// filterBlock is one cache line of a filter part.
type filterBlock [blockBits / 64]uint64

// filterPart is a blocked Bloom filter of fixed capacity.
type filterPart struct {
	blocks   []filterBlock
	keys     int // keys counts the keys added.
	capacity int
}

// keyFilter is a Bloom filter over every key that Pebble may hold: a key it
// reports absent is not in Pebble, so a cache miss on it need not read
// Pebble. It never reports a present key absent; keys deleted from Pebble
// stay in it, which only costs a read.
//
// It grows by adding parts, each twice the capacity of the one before, so
// that it needs no rescan of Pebble: new keys go into the last part, and a
// key may be present if any part says so. Past maxBytes it stops growing
// and turns itself off (every key may be present), so that its memory stays
// within the budget at the price of reading Pebble again.
type keyFilter struct {
	seed     maphash.Seed
	parts    []filterPart
	bytes    int64 // bytes is the size of parts.
	maxBytes int64
	off      bool
}

// newKeyFilter returns an empty filter of at most maxBytes that hashes
// keys with seed.
func newKeyFilter(maxBytes int64, seed maphash.Seed) keyFilter {
	return keyFilter{seed: seed, maxBytes: maxBytes}
}

// mayContain reports whether key may have been added. False means it was
// not.
func (f *keyFilter) mayContain(key []byte) bool {
	if f.off {
		return true
	}
	h := maphash.Bytes(f.seed, key)
	for i := len(f.parts) - 1; i >= 0; i-- {
		if f.parts[i].mayContain(h) {
			return true
		}
	}
	return false
}

// add records key, growing the filter or turning it off when its last part
// is full.
func (f *keyFilter) add(key []byte) { f.addHash(maphash.Bytes(f.seed, key)) }

// addHash records the key whose hash with the filter's seed is h.
func (f *keyFilter) addHash(h uint64) {
	if f.off {
		return
	}
	n := len(f.parts)
	if n == 0 || f.parts[n-1].keys >= f.parts[n-1].capacity {
		if !f.grow() {
			return
		}
		n++
	}
	f.parts[n-1].add(h)
}

// grow adds a part, or turns the filter off and reports false if that
// would take it past maxBytes.
func (f *keyFilter) grow() bool {
	capacity := filterFirstKeys
	if n := len(f.parts); n > 0 {
		capacity = 2 * f.parts[n-1].capacity
	}
	blocks := (capacity*filterBitsPerKey + blockBits - 1) / blockBits
	size := int64(blocks) * blockBits / 8
	if f.maxBytes > 0 && f.bytes+size > f.maxBytes {
		f.off, f.parts, f.bytes = true, nil, 0
		return false
	}
	f.parts = append(f.parts, filterPart{blocks: make([]filterBlock, blocks), capacity: capacity})
	f.bytes += size
	return true
}

// block returns the block of hash h: the high half of h scaled to the
// number of blocks.
func (p *filterPart) block(h uint64) *filterBlock {
	i, _ := bits.Mul64(h, uint64(len(p.blocks)))
	return &p.blocks[i]
}

// probes returns the bit positions of hash h in its block, nine bits each
// and seven to a word, taken from remixes of h so that they do not depend
// on the block index.
func probes(h uint64) [2]uint64 {
	return [2]uint64{(h ^ h>>29) * 0x9e3779b97f4a7c15, (h ^ h>>31) * 0xbf58476d1ce4e5b9}
}

// probe returns the j-th bit position of the probes g.
func probe(g *[2]uint64, j int) uint64 {
	const perWord = 64 / probeBits
	return g[j/perWord] >> (j % perWord * probeBits) & (blockBits - 1)
}

func (p *filterPart) add(h uint64) {
	b, g := p.block(h), probes(h)
	for j := range filterProbes {
		bit := probe(&g, j)
		b[bit/64] |= 1 << (bit % 64)
	}
	p.keys++
}

func (p *filterPart) mayContain(h uint64) bool {
	b, g := p.block(h), probes(h)
	for j := range filterProbes {
		bit := probe(&g, j)
		if b[bit/64]&(1<<(bit%64)) == 0 {
			return false
		}
	}
	return true
}
