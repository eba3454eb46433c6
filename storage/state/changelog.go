package state

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv"
	"github.com/floe-stream/floe/storage/snapshot"
)

// changeLog is a kv.Store that remembers which keys changed since the last
// snapshot, so a snapshot can hold only those: an incremental checkpoint.
type changeLog struct {
	kv.Store
	on      bool
	changed map[string]struct{}
	ranges  [][2][]byte
}

func (c *changeLog) mark(k []byte) {
	if _, ok := c.changed[string(k)]; !ok {
		c.changed[string(k)] = struct{}{}
	}
}

func (c *changeLog) Set(k, v []byte) error {
	if c.on {
		c.mark(k)
	}
	return c.Store.Set(k, v)
}

func (c *changeLog) Delete(k []byte) error {
	if c.on {
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
}

// TrackChanges starts remembering which keys change, so WriteSnapshot can
// write deltas. Jobs without checkpoints leave it off: the log grows with
// every key written until a snapshot resets it.
func (b *Backend) TrackChanges() {
	b.log.on = true
	b.log.reset()
}

// WriteSnapshot writes the state to w: every entry when full, otherwise the
// operations that turn the previous snapshot's state into the current one.
// It then starts a new change log. The caller closes w.
func (b *Backend) WriteSnapshot(w *snapshot.Writer, full bool) error {
	var err error
	if full {
		err = b.log.Store.Scan(nil, nil, func(k, v []byte) error { return w.Add(snapshot.Put, k, v) })
	} else {
		err = b.writeDelta(w)
	}
	if err != nil {
		return fmt.Errorf("state: snapshot: %w", err)
	}
	b.log.reset()
	return nil
}

// deltaOp is one operation of a delta, held until they are sorted.
type deltaOp struct {
	op         snapshot.Op
	key, value []byte
}

// writeDelta writes the range deletions and the current state of every
// changed key, in key order; at equal keys a range deletion comes first, so
// a later put survives it.
func (b *Backend) writeDelta(w *snapshot.Writer) error {
	ops := make([]deltaOp, 0, len(b.log.ranges)+len(b.log.changed))
	for _, r := range b.log.ranges {
		ops = append(ops, deltaOp{snapshot.DeleteRange, r[0], r[1]})
	}
	for k := range b.log.changed {
		v, ok, err := b.log.Store.Get([]byte(k))
		switch {
		case err != nil:
			return err
		case ok:
			ops = append(ops, deltaOp{snapshot.Put, []byte(k), bytes.Clone(v)})
		default:
			ops = append(ops, deltaOp{snapshot.Delete, []byte(k), nil})
		}
	}
	// NB: keys of puts and deletes are unique, and range deletions at one
	// key commute, so a plain sort by (key, range deletion first) is the
	// order; sort.SliceStable's reflection made it most of a snapshot's time.
	slices.SortFunc(ops, func(a, b deltaOp) int {
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c
		}
		return rangeFirst(a.op) - rangeFirst(b.op)
	})
	for _, o := range ops {
		if err := w.Add(o.op, o.key, o.value); err != nil {
			return err
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
