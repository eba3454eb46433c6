package state

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/snapshot"
)

// deltaCapture returns a Capture of n puts of state keys as a keyed count
// makes them: distinct, spread over the key groups, in no order.
func deltaCapture(n int) *Capture {
	c := &Capture{}
	ns := []byte("\x0ccount/counts")
	var key []byte
	for i := range n {
		user := fmt.Appendf(nil, "w%08x", uint32(i)*0x9e3779b1)
		kg := uint16(keygroup.Of(user, keygroup.DefaultMaxParallelism))
		key = appendKey(key[:0], kg, ns, user)
		c.add(snapshot.Put, key, []byte("12345678"))
	}
	return c
}

// TestCaptureSortOrder checks that a delta's ops come out in key order,
// range deletions first at equal keys, including keys that tie on rank.
func TestCaptureSortOrder(t *testing.T) {
	c := deltaCapture(20000)
	c.add(snapshot.DeleteRange, []byte("\x00\x05"), []byte("\x00\x06"))
	c.add(snapshot.Delete, []byte("\x00\x05"), nil)
	c.add(snapshot.DeleteRange, []byte("\x00\x07\x0ccount/counts\x09"), []byte("\x00\x08"))
	c.add(snapshot.Put, []byte("\x00\x07\x0ccount/counts\x09"), []byte("v"))
	c.sort()
	for i := 1; i < len(c.ops); i++ {
		a, b := c.ops[i-1], c.ops[i]
		d := bytes.Compare(c.buf[a.off:a.mid], c.buf[b.off:b.mid])
		if d > 0 || d == 0 && rangeFirst(a.op) > rangeFirst(b.op) {
			t.Fatalf("op %d (%q, %v) before op %d (%q, %v)", i-1, c.buf[a.off:a.mid], a.op, i, c.buf[b.off:b.mid], b.op)
		}
	}
}

// BenchmarkDeltaSort sorts a delta of 1M changed keys, by rank as
// Capture.Write does and by comparing keys, as it did.
func BenchmarkDeltaSort(b *testing.B) {
	c := deltaCapture(1_000_000)
	ops := slices.Clone(c.ops)
	b.Run("rank", func(b *testing.B) {
		for range b.N {
			copy(c.ops, ops)
			c.sort()
		}
	})
	b.Run("compare", func(b *testing.B) {
		for range b.N {
			copy(c.ops, ops)
			slices.SortFunc(c.ops, func(x, y deltaOp) int {
				if d := bytes.Compare(c.buf[x.off:x.mid], c.buf[y.off:y.mid]); d != 0 {
					return d
				}
				return rangeFirst(x.op) - rangeFirst(y.op)
			})
		}
	})
}
