package pebblekv

import (
	"fmt"
	"hash/maphash"
	"runtime"
	"testing"
)

// TestEntryOverhead checks that entryOverhead, with the key and value
// bytes, accounts for what the heap holds per cached entry, to within a
// quarter: the byte budget of the cache rests on it.
func TestEntryOverhead(t *testing.T) {
	const n = 300_000
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "w%08x", i*7919)
	}
	val := make([]byte, 8)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := newCache(n, 0, maphash.MakeSeed())
	for _, k := range keys {
		e := c.insert(k)
		c.setValue(e, val)
		c.markDirty(e)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perEntry := float64(after.HeapAlloc-before.HeapAlloc) / n
	estimate := float64(c.bytes) / n
	t.Logf("heap %.0f bytes per entry, estimate %.0f", perEntry, estimate)
	if perEntry > 1.25*estimate || perEntry < 0.75*estimate {
		t.Errorf("heap holds %.0f bytes per entry, the cache estimates %.0f", perEntry, estimate)
	}
	runtime.KeepAlive(c.entries)
}

// TestCacheBytesTracksEntries checks that the byte estimate returns to
// zero when every entry is removed and that the cache reports itself
// full at its byte bound.
func TestCacheBytesTracksEntries(t *testing.T) {
	c := newCache(1000, 10*(entryOverhead+4+8), maphash.MakeSeed())
	for i := 0; !c.full(); i++ {
		e := c.insert(fmt.Appendf(nil, "k%03d", i))
		c.setValue(e, make([]byte, 1000)[:8])
	}
	if n := c.len(); n != 10 {
		t.Errorf("cache full after %d entries, want 10", n)
	}
	e := c.lookup([]byte("k000"))
	c.setValue(e, make([]byte, 1000)) // A value too large to keep.
	c.forgetRange([]byte("k"), []byte("l"))
	if c.bytes != 9*8 {
		t.Errorf("after removing every entry the cache counts %d bytes, want the 9 kept buffers of 8", c.bytes)
	}
}
