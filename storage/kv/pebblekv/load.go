package pebblekv

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble"

	"github.com/floe-stream/floe/storage/kv"
)

// loadBatchBytes is how large a batch of loaded writes grows before it is
// committed. NB: a batch larger than half a memtable is committed by
// Pebble as a flushable batch of its own rather than copied into the
// memtable, so a few MiB keeps memory bounded and commits cheap.
const loadBatchBytes = 8 << 20

var _ kv.Loader = (*Store)(nil)

// Load implements kv.Loader. It writes to Pebble directly in batches, not
// through the write-back cache: a restore of millions of keys would
// otherwise insert, evict and write back every one of them. A loaded key
// is added to the key filter and dropped from the cache, so a later Get
// reads it from Pebble. With an observer, a loaded key that the filter
// may hold is read to learn what it replaces. While changes are tracked,
// the writes go through the cache, which remembers them.
func (s *Store) Load(fn func(w kv.Writer) error) error {
	if s.closed {
		return kv.ErrClosed
	}
	if s.tracking {
		return fn(s)
	}
	// NB: with the cache clean, dropping an entry loses nothing, and a
	// read of Pebble sees every write made before the load.
	if err := s.writeBack(); err != nil {
		return err
	}
	l := &loader{s: s, b: s.db.NewBatch()}
	err := fn(l)
	if err == nil {
		err = l.commit()
	}
	return errors.Join(err, l.b.Close())
}

// loader is the kv.Writer of Store.Load: a Pebble batch, committed
// whenever it reaches loadBatchBytes.
type loader struct {
	s *Store
	b *pebble.Batch
}

// Set implements kv.Writer.
func (l *loader) Set(key, value []byte) error {
	s := l.s
	known := s.filter.mayContain(key)
	if s.obs != nil {
		if err := l.noteReplaced(key, known, len(key)+len(value)); err != nil {
			return err
		}
	}
	if known {
		s.cache.forget(key)
	} else {
		// NB: an absent key may still have an entry that says so.
		if s.cache.len() > 0 {
			s.cache.forget(key)
		}
		s.addToFilter(key)
	}
	if err := l.b.Set(key, value, nil); err != nil {
		return fmt.Errorf("pebblekv: load: %w", err)
	}
	return l.maybeCommit()
}

// Delete implements kv.Writer. A key the filter knows absent costs
// nothing.
func (l *loader) Delete(key []byte) error {
	s := l.s
	if !s.filter.mayContain(key) {
		return nil
	}
	if s.obs != nil {
		if err := l.noteReplaced(key, true, 0); err != nil {
			return err
		}
	}
	s.cache.forget(key)
	if err := l.b.Delete(key, nil); err != nil {
		return fmt.Errorf("pebblekv: load: %w", err)
	}
	return l.maybeCommit()
}

// DeleteRange implements kv.Writer. It commits the writes so far and then
// deletes the range as Store.DeleteRange does; range deletions are rare.
func (l *loader) DeleteRange(start, end []byte) error {
	if err := l.commit(); err != nil {
		return err
	}
	return l.s.DeleteRange(start, end)
}

// noteReplaced tells the observer that key now has an entry of size bytes
// (0 for none), reading the entry it replaces from Pebble when the filter
// says there may be one. Every earlier write of the load to key is
// committed: within one load a key is written once, but for a range
// deletion, which commits first.
func (l *loader) noteReplaced(key []byte, known bool, bytes int) error {
	old, had := 0, false
	if known {
		val, closer, err := l.s.db.Get(key)
		switch {
		case errors.Is(err, pebble.ErrNotFound):
		case err != nil:
			return fmt.Errorf("pebblekv: load: %w", err)
		default:
			old, had = len(key)+len(val), true
			if err := closer.Close(); err != nil {
				return fmt.Errorf("pebblekv: load: %w", err)
			}
		}
	}
	switch {
	case had && bytes == 0:
		l.s.obs.Resized(key, -1, -old)
	case had && bytes != old:
		l.s.obs.Resized(key, 0, bytes-old)
	case !had && bytes != 0:
		l.s.obs.Resized(key, 1, bytes)
	}
	return nil
}

// maybeCommit commits the batch once it is large.
func (l *loader) maybeCommit() error {
	if l.b.Len() < loadBatchBytes {
		return nil
	}
	return l.commit()
}

// commit writes the batch to Pebble and starts an empty one.
func (l *loader) commit() error {
	if l.b.Empty() {
		return nil
	}
	if err := l.b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("pebblekv: load: %w", err)
	}
	l.b.Reset()
	return nil
}
