package state

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"unsafe"

	"github.com/floe-stream/floe/storage/internal/keyrank"
	"github.com/floe-stream/floe/storage/kv"
	"github.com/floe-stream/floe/storage/snapshot"
)

// WriteSnapshot writes the state to w: every entry when full, otherwise the
// operations that turn the previous snapshot's state into the current one.
// It is TakeSnapshot and Capture.Write in one go. The caller closes w.
func (b *Backend) WriteSnapshot(w *snapshot.Writer, full bool) error {
	c, err := b.TakeSnapshot(full)
	if err != nil {
		return err
	}
	return c.Write(w)
}

// Capture is the state of one snapshot taken out of the Backend, so that
// writing it may run on another goroutine while the Backend goes on
// changing: a full snapshot is a read-only view of a kv.Snapshotter store
// (pebblekv), or else a copy of every entry; a delta is a copy of the
// range deletions and of the current state of every changed key.
type Capture struct {
	view kv.View
	ops  []deltaOp
	// buf holds the keys and values of ops, so that copying them out
	// costs a few allocations per snapshot rather than two per key, and
	// ops hold no pointers for the garbage collector to trace.
	buf []byte
}

// deltaOp is one copied operation, held until they are sorted: its key is
// buf[off:mid] and its value, or a range deletion's upper bound,
// buf[mid:end].
type deltaOp struct {
	// rank orders ops by key before their keys are compared (keyrank).
	rank          uint64
	op            snapshot.Op
	off, mid, end int
}

// add appends an operation on key and value to c.
func (c *Capture) add(op snapshot.Op, key, value []byte) {
	off := len(c.buf)
	c.buf = append(append(c.buf, key...), value...)
	c.ops = append(c.ops, deltaOp{op: op, off: off, mid: off + len(key), end: len(c.buf)})
}

// TakeSnapshot takes the state of a snapshot, full or a delta since the
// previous one, and starts a new change log. It is the part of a snapshot
// that must run between two state operations; the Capture shares nothing
// with the Backend but, for a full one, a view of the store. When it
// fails, the next snapshot must be a full one.
func (b *Backend) TakeSnapshot(full bool) (*Capture, error) {
	c := &Capture{}
	var err error
	if s, ok := b.log.Store.(kv.Snapshotter); ok && full {
		c.view, err = s.Snapshot()
	} else if full {
		err = b.log.Store.Scan(nil, nil, func(k, v []byte) error {
			c.add(snapshot.Put, k, v)
			return nil
		})
	} else {
		err = b.takeDelta(c)
	}
	if err != nil {
		return nil, fmt.Errorf("state: snapshot: %w", err)
	}
	b.log.reset()
	return c, nil
}

// takeDelta copies the changes the log and the store recorded into c.
func (b *Backend) takeDelta(c *Capture) error {
	c.ops = make([]deltaOp, 0, len(b.log.ranges)+len(b.log.changed))
	for _, r := range b.log.ranges {
		c.add(snapshot.DeleteRange, r[0], r[1])
	}
	if b.log.tracker != nil {
		err := b.log.tracker.Changes(func(k, v []byte, ok bool) error {
			if ok {
				c.add(snapshot.Put, k, v)
			} else {
				c.add(snapshot.Delete, k, nil)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for k := range b.log.changed {
		key := unsafe.Slice(unsafe.StringData(k), len(k))
		v, ok, err := b.log.Store.Get(key)
		switch {
		case err != nil:
			return err
		case ok:
			c.add(snapshot.Put, key, v)
		default:
			c.add(snapshot.Delete, key, nil)
		}
	}
	return nil
}

// Write writes c to w in key order; at equal keys a range deletion comes
// first, so a later put survives it. The caller closes w. Write may run on
// any goroutine; it must be called once, or Discard, to release c.
func (c *Capture) Write(w *snapshot.Writer) error {
	if c.view != nil {
		err := c.view.Scan(nil, nil, func(k, v []byte) error { return w.Add(snapshot.Put, k, v) })
		if err != nil {
			err = fmt.Errorf("state: snapshot: %w", err)
		}
		return errors.Join(err, c.Discard())
	}
	c.sort()
	for _, o := range c.ops {
		var v []byte
		if o.op != snapshot.Delete {
			v = c.buf[o.mid:o.end]
		}
		if err := w.Add(o.op, c.buf[o.off:o.mid], v); err != nil {
			return fmt.Errorf("state: snapshot: %w", err)
		}
	}
	return nil
}

// sort puts c.ops in key order, a range deletion before a put or delete at
// its key. NB: keys of puts and deletes are unique, and range deletions at
// one key commute, so a plain sort by (key, range deletion first) is the
// order; sort.SliceStable's reflection made it most of a snapshot's time.
// Comparing the keys themselves then made most of a delta's: at 20M keys a
// delta of 1M took 11% of a keyed count's CPU, each comparison reading two
// keys from all over buf past a long shared prefix. Ops are sorted by rank
// first (keyrank), which tells nearly all keys apart.
func (c *Capture) sort() {
	var r keyrank.Ranker
	r.Rank(len(c.ops), func(i int) []byte { return c.buf[c.ops[i].off:c.ops[i].mid] },
		func(i int, rank uint64) { c.ops[i].rank = rank })
	keyrank.Sort(&r, c.ops, func(o *deltaOp) uint64 { return o.rank }, func(a, b deltaOp) int {
		if a.rank != b.rank {
			return cmp.Compare(a.rank, b.rank)
		}
		if d := bytes.Compare(c.buf[a.off:a.mid], c.buf[b.off:b.mid]); d != 0 {
			return d
		}
		return rangeFirst(a.op) - rangeFirst(b.op)
	})
}

// Discard releases c without writing it.
func (c *Capture) Discard() error {
	if c.view == nil {
		return nil
	}
	err := c.view.Close()
	c.view = nil
	return err
}

// rangeFirst orders a range deletion before a put or delete at its key.
func rangeFirst(op snapshot.Op) int {
	if op == snapshot.DeleteRange {
		return 0
	}
	return 1
}
