package pebblekv

import (
	"cmp"
	"hash/maphash"
	"strings"
	"unsafe"

	"github.com/floe-stream/floe/storage/internal/keyrank"
)

// Flags of a cache entry.
const (
	// flagUsed marks a slot that holds an entry; free slots have no flags.
	flagUsed uint8 = 1 << iota
	// flagPresent marks a key that has a value. A used entry without it
	// records that the key is absent, so repeated misses skip Pebble.
	flagPresent
	// flagDirty marks an entry that differs from Pebble.
	flagDirty
	// flagRef is the clock's reference bit, set on every access.
	flagRef
	// flagFiltered marks a key that the store's key filter holds, so
	// that writing it back need not add it again.
	flagFiltered
	// flagChanged marks a key written since the store last reported its
	// changes (kv.ChangeTracker).
	flagChanged
)

// maxKeptValueCap is the largest value buffer an evicted slot keeps for
// reuse; larger ones are left to the garbage collector.
const maxKeptValueCap = 256

// entryOverhead is what a cache entry costs besides its key and value
// bytes: the entry itself, its words in the index at the index's usual
// load, and its place in the free and dirty lists. Measured with
// TestEntryOverhead.
const entryOverhead = 80

// entry is the cached state of one key.
type entry struct {
	key   string
	val   []byte
	hash  uint64 // hash is the key's, with the cache's seed.
	slot  int32  // slot is the entry's index in cache.entries.
	flags uint8
}

// keyBytes returns the entry's key as a slice that must not be modified.
func (e *entry) keyBytes() []byte {
	return unsafe.Slice(unsafe.StringData(e.key), len(e.key))
}

// cache maps keys to entries kept in one slice, so that the clock hand can
// sweep them and slots can be reused without allocating. Dirty entries are
// never evicted: they must be written to Pebble first.
//
// NB: insert may move the entries, so an *entry is valid only until the
// next insert.
type cache struct {
	seed     maphash.Seed
	index    index
	entries  []entry
	free     []int32
	dirty    []int32 // dirty lists the slots of dirty entries in no order.
	hand     int
	capacity int
	// bytes estimates the memory of the cached entries: entryOverhead and
	// the key of each, and every value buffer, kept ones included.
	bytes int64
	// maxBytes bounds bytes; 0 means no bound.
	maxBytes int64
	// last is the slot of the latest lookup or insert, or -1. State is
	// mostly read, modified and written back, so the write's lookup is
	// usually of the same key and can skip the index.
	last int32
	// changed lists the slots of the entries that got flagChanged, in no
	// order; a slot may repeat or have been reused since, so only entries
	// with the flag count.
	changed []int32
	// removed holds the keys of changed entries removed from the cache,
	// and where an evicted one's value is kept (see removedEntry).
	removed map[string]removedEntry
	// kept holds the values of evicted changed entries, up to
	// keptLimit bytes, until Changes reports them.
	kept []byte
	// rangeDeletes counts range deletions since changes were last
	// reported: a value kept before one may be stale.
	rangeDeletes uint32
	// ranker and sorting are sortDirty's, kept for the next write-back.
	ranker  keyrank.Ranker
	sorting []rankedSlot
}

// newCache returns a cache that holds at most capacity entries and, unless
// maxBytes is 0, about maxBytes bytes. It hashes keys with seed.
func newCache(capacity int, maxBytes int64, seed maphash.Seed) cache {
	return cache{seed: seed, capacity: capacity, maxBytes: maxBytes, last: -1}
}

// hash returns the hash of key.
func (c *cache) hash(key []byte) uint64 { return maphash.Bytes(c.seed, key) }

// len returns the number of cached entries.
func (c *cache) len() int { return c.index.n }

// find returns the slot of key, or -1.
func (c *cache) find(key []byte) int32 {
	return c.index.find(c.hash(key), unsafe.String(unsafe.SliceData(key), len(key)), c.entries)
}

// lookup returns the entry for key, or nil, and marks it referenced.
func (c *cache) lookup(key []byte) *entry {
	if c.last >= 0 {
		if e := &c.entries[c.last]; e.flags&flagUsed != 0 && e.key == string(key) {
			e.flags |= flagRef
			return e
		}
	}
	i := c.find(key)
	if i < 0 {
		return nil
	}
	c.last = i
	e := &c.entries[i]
	e.flags |= flagRef
	return e
}

// full reports whether inserting a new key needs an eviction first.
func (c *cache) full() bool {
	return c.len() >= c.capacity || (c.maxBytes > 0 && c.bytes >= c.maxBytes)
}

// setValue makes v the value of e, keeping track of the memory of its
// buffer. v may alias e.val.
func (c *cache) setValue(e *entry, v []byte) {
	before := cap(e.val)
	e.val = append(e.val[:0], v...)
	c.bytes += int64(cap(e.val) - before)
}

// insert adds an entry for key, which must not be cached, in a free slot.
// The caller makes room first when the cache is full. The entry is clean,
// absent and has an empty value buffer.
func (c *cache) insert(key []byte) *entry {
	var i int32
	if n := len(c.free); n > 0 {
		i = c.free[n-1]
		c.free = c.free[:n-1]
	} else {
		i = int32(len(c.entries))
		c.entries = append(c.entries, entry{})
	}
	e := &c.entries[i]
	e.key = string(key)
	e.hash = c.hash(key)
	e.slot = i
	e.flags = flagUsed | flagRef
	c.index.add(e.hash, i, c.entries)
	c.bytes += entryOverhead + int64(len(e.key))
	c.last = i
	return e
}

// rankedSlot is a dirty slot and the rank of its key (keyrank).
type rankedSlot struct {
	rank uint64
	slot int32
}

// sortDirty puts c.dirty in key order. NB: comparing the keys themselves
// read two entries and two keys that no CPU cache held, and compared
// their shared key group and namespace: 5% of a 20M-key keyed count's CPU.
// Ranks tell nearly all keys apart beside the slots.
func (c *cache) sortDirty() {
	s := c.sorting[:0]
	for _, i := range c.dirty {
		s = append(s, rankedSlot{slot: i})
	}
	c.ranker.Rank(len(s), func(i int) []byte { return c.entries[s[i].slot].keyBytes() },
		func(i int, rank uint64) { s[i].rank = rank })
	keyrank.Sort(&c.ranker, s, func(x *rankedSlot) uint64 { return x.rank }, func(a, b rankedSlot) int {
		if a.rank != b.rank {
			return cmp.Compare(a.rank, b.rank)
		}
		return strings.Compare(c.entries[a.slot].key, c.entries[b.slot].key)
	})
	for j, x := range s {
		c.dirty[j] = x.slot
	}
	c.sorting = s
}

// markDirty records that e, which is cached, no longer matches Pebble.
func (c *cache) markDirty(e *entry) {
	if e.flags&flagDirty != 0 {
		return
	}
	e.flags |= flagDirty
	c.dirty = append(c.dirty, e.slot)
}

// evictOne removes one clean entry chosen by the clock algorithm and
// reports whether it found one: it fails only when every entry is dirty.
func (c *cache) evictOne() bool {
	for range 2 * len(c.entries) {
		i := c.hand
		c.hand = (c.hand + 1) % len(c.entries)
		e := &c.entries[i]
		switch {
		case e.flags&flagUsed == 0 || e.flags&flagDirty != 0:
		case e.flags&flagRef != 0:
			e.flags &^= flagRef
		default:
			c.remove(int32(i), true)
			return true
		}
	}
	return false
}

// markChanged records that e, which is cached, was written.
func (c *cache) markChanged(e *entry) {
	if e.flags&flagChanged != 0 {
		return
	}
	e.flags |= flagChanged
	c.changed = append(c.changed, e.slot)
}

// removedEntry is what Changes reports for a changed key whose entry was
// removed from the cache. NB: an evicted entry is clean, so its value is
// Pebble's; keeping it spares Changes a Pebble read per evicted key, 4% of
// a 20M-key keyed count's CPU when it read them. A value is kept only
// while the kept values take at most keptLimit, and only for eviction: an
// entry dropped for a range deletion or a load is read from Pebble.
type removedEntry struct {
	// off and n locate the value in cache.kept; n < 0 means that none is
	// kept.
	off, n int32
	// rangeDeletes is the cache's count when the value was kept: after a
	// range deletion, Pebble may no longer hold it.
	rangeDeletes uint32
	present      bool
}

// keptLimit is the most bytes of evicted values the cache keeps for
// Changes: a sixteenth of its budget, or 16 MiB without one.
func (c *cache) keptLimit() int {
	if c.maxBytes <= 0 {
		return 16 << 20
	}
	return int(min(c.maxBytes/16, 1<<30))
}

// noteRemoved records that the changed entry e leaves the cache, keeping
// its value when keep is set and there is room.
func (c *cache) noteRemoved(e *entry, keep bool) {
	if c.removed == nil {
		c.removed = map[string]removedEntry{}
	}
	r := removedEntry{n: -1}
	if keep && len(c.kept)+len(e.val) <= c.keptLimit() {
		r = removedEntry{off: int32(len(c.kept)), n: int32(len(e.val)), rangeDeletes: c.rangeDeletes,
			present: e.flags&flagPresent != 0}
		c.kept = append(c.kept, e.val...)
	}
	c.removed[e.key] = r
}

// remove frees slot i, keeping a small value buffer for the next user.
// keep is whether a changed entry's value may be kept for Changes: the
// entry is clean and Pebble holds that value.
func (c *cache) remove(i int32, keep bool) {
	e := &c.entries[i]
	c.index.remove(e.hash, i)
	if e.flags&flagChanged != 0 {
		c.noteRemoved(e, keep)
	}
	c.bytes -= entryOverhead + int64(len(e.key))
	val := e.val[:0]
	if cap(val) > maxKeptValueCap {
		c.bytes -= int64(cap(val))
		val = nil
	}
	*e = entry{val: val}
	c.free = append(c.free, i)
}

// forget drops the cached state of key, if any. The entry must be clean.
func (c *cache) forget(key []byte) {
	if i := c.find(key); i >= 0 {
		c.remove(i, false)
	}
}

// forgetRange drops every cached entry with start <= key < end by sweeping
// all slots. The entries must be clean.
func (c *cache) forgetRange(start, end []byte) {
	lo := unsafe.String(unsafe.SliceData(start), len(start))
	hi := unsafe.String(unsafe.SliceData(end), len(end))
	for i := range c.entries {
		e := &c.entries[i]
		if e.flags&flagUsed != 0 && e.key >= lo && e.key < hi {
			c.remove(int32(i), false)
		}
	}
}
