package pebblekv

import "math/bits"

// index maps the keys of cached entries to their slots. It is an open
// addressing table with linear probing: each word holds an entry's slot
// plus one in its low half (zero is an empty word) and the high half of the
// key's hash in its high half, and a key's first word is given by the high
// bits of its hash. Deletion moves later words of a run back rather than
// leaving tombstones, and the table grows to keep at most half its words
// used, so that a probe for an absent key, the usual case of a cache over
// many distinct keys, reads one or two words of one cache line.
//
// NB: Go's map did this job before. A cache that evicts a key for every new
// one deletes as often as it inserts, and the map's probes, its deletes'
// tombstones and the hashing of the key on each of lookup, insert and
// delete took ~18% of the CPU of a 20M-key keyed count (RATIONALE.md).
type index struct {
	words []uint64
	n     int // n counts the used words.
	shift uint
}

const (
	// minIndexBits is the log2 of the smallest table.
	minIndexBits = 10
	lowHalf      = 1<<32 - 1
)

// first returns the first word to probe for hash h.
func (x *index) first(h uint64) uint64 { return h >> x.shift }

// find returns the slot of the entry whose hash is h and key is key, or -1.
func (x *index) find(h uint64, key string, entries []entry) int32 {
	if x.n == 0 {
		return -1
	}
	mask := uint64(len(x.words) - 1)
	tag := h &^ lowHalf
	for i := x.first(h); ; i = (i + 1) & mask {
		w := x.words[i]
		if w == 0 {
			return -1
		}
		if w&^lowHalf == tag {
			if s := int32(uint32(w)) - 1; entries[s].key == key {
				return s
			}
		}
	}
}

// add records the entry in slot with hash h, whose key is not in x.
func (x *index) add(h uint64, slot int32, entries []entry) {
	if 2*(x.n+1) > len(x.words) {
		x.grow(entries)
	}
	x.put(h, slot)
	x.n++
}

// put writes the word of slot into the first empty word of h's run.
func (x *index) put(h uint64, slot int32) {
	mask := uint64(len(x.words) - 1)
	i := x.first(h)
	for x.words[i] != 0 {
		i = (i + 1) & mask
	}
	x.words[i] = h&^lowHalf | uint64(uint32(slot+1))
}

// grow doubles the table and re-adds every entry.
func (x *index) grow(entries []entry) {
	b := minIndexBits
	if len(x.words) > 0 {
		b = bits.Len(uint(len(x.words)))
	}
	old := x.words
	x.words, x.shift = make([]uint64, 1<<b), uint(64-b)
	for _, w := range old {
		if w != 0 {
			s := int32(uint32(w)) - 1
			x.put(entries[s].hash, s)
		}
	}
}

// remove deletes the word of slot, whose entry has hash h, and moves back
// the words after it in its run that may no longer be found past the gap.
func (x *index) remove(h uint64, slot int32) {
	mask := uint64(len(x.words) - 1)
	want := uint64(uint32(slot + 1))
	i := x.first(h)
	for uint64(uint32(x.words[i])) != want {
		i = (i + 1) & mask
	}
	// Knuth's algorithm R: a word at j may move to the gap at i unless its
	// first word lies cyclically in (i, j].
	for j := (i + 1) & mask; x.words[j] != 0; j = (j + 1) & mask {
		f := x.words[j] >> 32 >> (x.shift - 32)
		if (j-f)&mask >= (j-i)&mask {
			x.words[i] = x.words[j]
			i = j
		}
	}
	x.words[i] = 0
	x.n--
}
