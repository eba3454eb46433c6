package pebblekv

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/cockroachdb/pebble"

	"github.com/floe-stream/floe/storage/kv"
)

// NB: change tracking lives in the cache entries: every Set and Delete
// already finds its entry, so remembering the key is a flag and, once per
// key and snapshot, a slot appended to a list. A set of keys kept beside
// the store cost a hash lookup per write, ~8% of a keyed count's time.

// TrackChanges implements kv.ChangeTracker.
func (s *Store) TrackChanges() {
	s.tracking = true
	for _, i := range s.cache.changed {
		s.cache.entries[i].flags &^= flagChanged
	}
	s.cache.changed = s.cache.changed[:0]
	s.cache.forgetRemoved()
}

// forgetRemoved drops what the cache remembers of removed changed keys.
func (c *cache) forgetRemoved() {
	c.removed = nil
	c.kept = c.kept[:0]
	c.rangeDeletes = 0
}

// Changes implements kv.ChangeTracker. A changed key that was evicted
// since is reported with the value it had then, which Pebble still holds,
// or else read from Pebble.
func (s *Store) Changes(fn func(key, value []byte, present bool) error) error {
	if s.closed {
		return kv.ErrClosed
	}
	for k, r := range s.cache.removed {
		if err := s.reportRemoved(k, r, fn); err != nil {
			return err
		}
		delete(s.cache.removed, k)
	}
	s.cache.forgetRemoved()
	c := &s.cache
	for n, i := range c.changed {
		e := &c.entries[i]
		if e.flags&flagChanged == 0 {
			continue
		}
		e.flags &^= flagChanged
		if err := fn(e.keyBytes(), e.val, e.flags&flagPresent != 0); err != nil {
			c.changed = append(c.changed[:0], c.changed[n+1:]...)
			return err
		}
	}
	c.changed = c.changed[:0]
	return nil
}

// reportRemoved reports the changed key k, whose entry was removed from
// the cache as r says. If k is cached again and changed, its entry reports
// it.
func (s *Store) reportRemoved(k string, r removedEntry, fn func(key, value []byte, present bool) error) error {
	key := unsafe.Slice(unsafe.StringData(k), len(k))
	if i := s.cache.find(key); i >= 0 {
		e := &s.cache.entries[i]
		if e.flags&flagChanged != 0 {
			return nil
		}
		return fn(key, e.val, e.flags&flagPresent != 0)
	}
	if r.n >= 0 && r.rangeDeletes == s.cache.rangeDeletes {
		return fn(key, s.cache.kept[r.off:r.off+r.n], r.present)
	}
	val, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return fn(key, nil, false)
	}
	if err != nil {
		return fmt.Errorf("pebblekv: changes: %w", err)
	}
	err = fn(key, val, true)
	return errors.Join(err, closer.Close())
}

// Snapshot implements kv.Snapshotter. It writes the dirty entries back and
// takes a Pebble snapshot, which holds every write so far and costs
// nothing until Pebble compacts the keys it pins.
func (s *Store) Snapshot() (kv.View, error) {
	if s.closed {
		return nil, kv.ErrClosed
	}
	if err := s.writeBack(); err != nil {
		return nil, err
	}
	return &view{snap: s.db.NewSnapshot()}, nil
}

// view is a Store's kv.View: a Pebble snapshot.
type view struct {
	snap *pebble.Snapshot
}

// Scan implements kv.View.
func (v *view) Scan(start, end []byte, fn func(k, v []byte) error) error {
	it, err := v.snap.NewIter(&pebble.IterOptions{LowerBound: start, UpperBound: end})
	if err != nil {
		return fmt.Errorf("pebblekv: scan snapshot: %w", err)
	}
	for it.First(); it.Valid(); it.Next() {
		if err := fn(it.Key(), it.Value()); err != nil {
			it.Close()
			return err
		}
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("pebblekv: scan snapshot: %w", err)
	}
	return nil
}

// Close implements kv.View.
func (v *view) Close() error {
	if err := v.snap.Close(); err != nil {
		return fmt.Errorf("pebblekv: close snapshot: %w", err)
	}
	return nil
}
