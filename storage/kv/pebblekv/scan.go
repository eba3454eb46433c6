package pebblekv

import (
	"bytes"
	"fmt"

	"github.com/cockroachdb/pebble"

	"github.com/floe-stream/floe/storage/kv"
)

// pointDeleteLimit is how many keys DeleteRange deletes one by one before
// it uses a range tombstone instead. Point deletes keep small ranges, such
// as clearing one key's map state, from piling up range tombstones that
// every later read must consult.
const pointDeleteLimit = 128

// Scan implements kv.Store. It writes dirty entries back first and then
// iterates Pebble, which then holds every write.
func (s *Store) Scan(start, end []byte, fn func(k, v []byte) error) error {
	if s.closed {
		return kv.ErrClosed
	}
	if end != nil && bytes.Compare(start, end) >= 0 {
		return nil
	}
	if err := s.writeBack(); err != nil {
		return err
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: start, UpperBound: end})
	if err != nil {
		return fmt.Errorf("pebblekv: scan: %w", err)
	}
	for it.First(); it.Valid(); it.Next() {
		if err := fn(it.Key(), it.Value()); err != nil {
			it.Close()
			return err
		}
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("pebblekv: scan: %w", err)
	}
	return nil
}

// DeleteRange implements kv.Store. After writing dirty entries back, it
// walks the range in Pebble to drop the cached entries of its keys; once
// the range has more keys than the cache can hold it sweeps the cache
// instead, so the cost is bounded by the smaller of the two.
func (s *Store) DeleteRange(start, end []byte) error {
	if s.closed {
		return kv.ErrClosed
	}
	if bytes.Compare(start, end) >= 0 {
		return nil
	}
	if err := s.writeBack(); err != nil {
		return err
	}
	s.cache.rangeDeletes++
	b := s.db.NewBatch()
	defer b.Close()
	if err := s.deleteKeysIn(b, start, end); err != nil {
		return err
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("pebblekv: delete range: %w", err)
	}
	return nil
}

// deleteKeysIn adds to b the deletes of every key in [start, end) and drops
// those keys from the clean cache.
func (s *Store) deleteKeysIn(b *pebble.Batch, start, end []byte) error {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: start, UpperBound: end})
	if err != nil {
		return fmt.Errorf("pebblekv: delete range: %w", err)
	}
	n, sweep := 0, false
	for it.First(); it.Valid() && err == nil; it.Next() {
		if s.obs != nil {
			s.obs.Resized(it.Key(), -1, -len(it.Key())-len(it.Value()))
		}
		if sweep {
			if s.obs == nil {
				break
			}
			continue
		}
		s.cache.forget(it.Key())
		if n++; n <= pointDeleteLimit {
			err = b.Delete(it.Key(), nil)
		}
		sweep = n > len(s.cache.entries)
	}
	if closeErr := it.Close(); err == nil {
		err = closeErr
	}
	if err == nil && (n > pointDeleteLimit || sweep) {
		err = b.DeleteRange(start, end, nil)
	}
	if err != nil {
		return fmt.Errorf("pebblekv: delete range: %w", err)
	}
	if sweep {
		s.cache.forgetRange(start, end)
	}
	return nil
}
