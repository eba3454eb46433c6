package state

import (
	"bytes"
	"fmt"
	"io"

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

// Restore applies the operations of the key groups in rng from a snapshot
// to the store, bypassing the change log. Apply a full snapshot, then its
// deltas in order, before TrackChanges: a store that tracks its own
// changes (kv.ChangeTracker) would otherwise put the restored keys in the
// next delta, which is correct but large and, for pebblekv, slow. A store
// that loads in bulk (kv.Loader) takes each file's operations that way.
// It returns the bytes it read.
func (b *Backend) Restore(r io.ReaderAt, size int64, rng keygroup.Range) (int64, error) {
	var n int64
	read := func(w kv.Writer) error {
		var err error
		n, err = snapshot.Read(r, size, rng, func(op snapshot.Op, k, v []byte) error {
			switch op {
			case snapshot.Put:
				return w.Set(k, v)
			case snapshot.Delete:
				return w.Delete(k)
			default:
				return w.DeleteRange(k, v)
			}
		})
		return err
	}
	var err error
	if l, ok := b.log.Store.(kv.Loader); ok {
		err = l.Load(read)
	} else {
		err = read(b.log.Store)
	}
	if err != nil {
		return n, fmt.Errorf("state: restore: %w", err)
	}
	return n, nil
}
