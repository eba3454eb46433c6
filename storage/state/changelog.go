package state

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"unsafe"

	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv"
	"github.com/floe-stream/floe/storage/snapshot"
)

// changeLog is a kv.Store that remembers which keys changed since the last
// snapshot, so a snapshot can hold only those: an incremental checkpoint.
// A store that tracks its changes itself (kv.ChangeTracker, as pebblekv
// does) remembers the keys, and the log only the range deletions.
type changeLog struct {
	kv.Store
	on bool
	// keys is whether Set and Delete record their key in changed: on,
	// unless tracker does it.
	keys    bool
	tracker kv.ChangeTracker
	changed map[string]struct{}
	ranges  [][2][]byte
}

func (c *changeLog) mark(k []byte) {
	if _, ok := c.changed[string(k)]; !ok {
		c.changed[string(k)] = struct{}{}
	}
}

func (c *changeLog) Set(k, v []byte) error {
	if c.keys {
		c.mark(k)
	}
	return c.Store.Set(k, v)
}

func (c *changeLog) Delete(k []byte) error {
	if c.keys {
		c.mark(k)
	}
	return c.Store.Delete(k)
}

func (c *changeLog) DeleteRange(start, end []byte) error {
	if c.on {
		c.ranges = append(c.ranges, [2][]byte{bytes.Clone(start), bytes.Clone(end)})
	}
	return c.Store.DeleteRange(start, end)
}

func (c *changeLog) reset() {
	if c.changed == nil {
		c.changed = map[string]struct{}{}
	}
	// NB: clear keeps the map's room for the next interval's keys.
	clear(c.changed)
	c.ranges = nil
	if c.on && c.tracker != nil {
		c.tracker.TrackChanges()
	}
}

// TrackChanges starts remembering which keys change, so WriteSnapshot can
// write deltas. Jobs without checkpoints leave it off: the log grows with
// every key written until a snapshot resets it.
func (b *Backend) TrackChanges() {
	b.log.on = true
	b.log.tracker, _ = b.log.Store.(kv.ChangeTracker)
	b.log.keys = b.log.tracker == nil
	b.log.reset()
}

// WriteSnapshot writes the state to w: every entry when full, otherwise the
// operations that turn the previous snapshot's state into the current one
// (TakeDelta, then Delta.Write). It then starts a new change log. The
// caller closes w.
func (b *Backend) WriteSnapshot(w *snapshot.Writer, full bool) error {
	if !full {
		d, err := b.TakeDelta()
		if err != nil {
			return err
		}
		return d.Write(w)
	}
	err := b.log.Store.Scan(nil, nil, func(k, v []byte) error { return w.Add(snapshot.Put, k, v) })
	if err != nil {
		return fmt.Errorf("state: snapshot: %w", err)
	}
	b.log.reset()
	return nil
}

// Delta is what changed since the previous snapshot, copied out of the
// store: the range deletions and the current state of every changed key.
// It is the synchronous part of an incremental snapshot; writing it
// (Delta.Write) sorts and encodes it and may run on another goroutine
// while the Backend goes on changing.
type Delta struct {
	ops []deltaOp
	// buf holds the keys and values of the operations, so that copying
	// them out costs a few allocations per snapshot rather than two per
	// key, and ops hold no pointers for the garbage collector to trace.
	buf []byte
}

// deltaOp is one operation of a delta, held until they are sorted: its key
// is buf[off:mid] and its value, or a range deletion's upper bound,
// buf[mid:end].
type deltaOp struct {
	op            snapshot.Op
	off, mid, end int
}

// add appends an operation on key and value to d.
func (d *Delta) add(op snapshot.Op, key, value []byte) {
	off := len(d.buf)
	d.buf = append(append(d.buf, key...), value...)
	d.ops = append(d.ops, deltaOp{op: op, off: off, mid: off + len(key), end: len(d.buf)})
}

// TakeDelta copies the changes since the previous snapshot out of the
// store and starts a new change log. The Delta shares nothing with the
// Backend. When it fails, the next snapshot must be a full one.
func (b *Backend) TakeDelta() (*Delta, error) {
	d := &Delta{ops: make([]deltaOp, 0, len(b.log.ranges)+len(b.log.changed))}
	for _, r := range b.log.ranges {
		d.add(snapshot.DeleteRange, r[0], r[1])
	}
	if b.log.tracker != nil {
		err := b.log.tracker.Changes(func(k, v []byte, ok bool) error {
			if ok {
				d.add(snapshot.Put, k, v)
			} else {
				d.add(snapshot.Delete, k, nil)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("state: snapshot: %w", err)
		}
	}
	for k := range b.log.changed {
		key := unsafe.Slice(unsafe.StringData(k), len(k))
		v, ok, err := b.log.Store.Get(key)
		switch {
		case err != nil:
			return nil, fmt.Errorf("state: snapshot: %w", err)
		case ok:
			d.add(snapshot.Put, key, v)
		default:
			d.add(snapshot.Delete, key, nil)
		}
	}
	b.log.reset()
	return d, nil
}

// Len returns the number of operations of d.
func (d *Delta) Len() int { return len(d.ops) }

// Write writes d to w in key order; at equal keys a range deletion comes
// first, so a later put survives it. The caller closes w. Write may run on
// any goroutine, once.
func (d *Delta) Write(w *snapshot.Writer) error {
	// NB: keys of puts and deletes are unique, and range deletions at one
	// key commute, so a plain sort by (key, range deletion first) is the
	// order; sort.SliceStable's reflection made it most of a snapshot's time.
	slices.SortFunc(d.ops, func(a, b deltaOp) int {
		if c := bytes.Compare(d.buf[a.off:a.mid], d.buf[b.off:b.mid]); c != 0 {
			return c
		}
		return rangeFirst(a.op) - rangeFirst(b.op)
	})
	for _, o := range d.ops {
		var v []byte
		if o.op != snapshot.Delete {
			v = d.buf[o.mid:o.end]
		}
		if err := w.Add(o.op, d.buf[o.off:o.mid], v); err != nil {
			return fmt.Errorf("state: snapshot: %w", err)
		}
	}
	return nil
}

// rangeFirst orders a range deletion before a put or delete at its key.
func rangeFirst(op snapshot.Op) int {
	if op == snapshot.DeleteRange {
		return 0
	}
	return 1
}

// Restore applies the operations of the key groups in rng from a snapshot
// to the store, bypassing the change log. Apply a full snapshot, then its
// deltas in order. It returns the bytes it read.
func (b *Backend) Restore(r io.ReaderAt, size int64, rng keygroup.Range) (int64, error) {
	n, err := snapshot.Read(r, size, rng, func(op snapshot.Op, k, v []byte) error {
		switch op {
		case snapshot.Put:
			return b.log.Store.Set(k, v)
		case snapshot.Delete:
			return b.log.Store.Delete(k)
		default:
			return b.log.Store.DeleteRange(k, v)
		}
	})
	if err != nil {
		return n, fmt.Errorf("state: restore: %w", err)
	}
	return n, nil
}
