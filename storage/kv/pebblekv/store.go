package pebblekv

import (
	"errors"
	"fmt"
	"hash/maphash"

	"github.com/cockroachdb/pebble"

	"github.com/floe-stream/floe/storage/kv"
)

// Store is a kv.Store kept in a Pebble database behind a write-back cache.
// Like every kv.Store it is used by one goroutine at a time; reads update
// the cache, so not even Get may run concurrently with another call.
type Store struct {
	db     *pebble.DB
	cache  cache
	filter keyFilter
	// writeBackBytes is the budget of the cache and the filter together:
	// the cache gets what the filter does not take.
	writeBackBytes int64
	maxDirty       int
	stats          Stats
	// obs is told of every change; nil when none is. See Observe.
	obs kv.Observer
	// tracking is whether writes are remembered for Changes.
	tracking bool
	closed   bool
}

var (
	_ kv.Observable    = (*Store)(nil)
	_ kv.ChangeTracker = (*Store)(nil)
	_ kv.Snapshotter   = (*Store)(nil)
)

// Stats are counters of a Store's cache, for tests and metrics.
type Stats struct {
	// Hits and Misses count Gets that found and did not find their key
	// in the cache.
	Hits, Misses uint64
	// Reads counts the misses that read Pebble; the others knew that the
	// key is absent (see the package documentation).
	Reads uint64
	// WriteBacks counts batches of dirty entries written to Pebble, and
	// Written the sets and deletes in them.
	WriteBacks, Written uint64
	// Cached and Dirty are the current numbers of cached and dirty keys.
	Cached, Dirty int
	// CacheBytes and FilterBytes estimate the memory of the write-back
	// cache and the key filter.
	CacheBytes, FilterBytes int64
}

// Open opens, creating it if needed, the Pebble database in dir on opts.FS.
func Open(dir string, opts Options) (*Store, error) {
	opts, b := opts.withDefaults()
	// NB: Pebble reserves the memory of its memtables, the mutable one and
	// one being flushed, from the block cache; without room for them a
	// small cache would hold no blocks at all and every read would go to
	// disk.
	blockCache := pebble.NewCache(b.blockCache + 2*b.memTable)
	defer blockCache.Unref()
	db, err := pebble.Open(dir, opts.pebbleOptions(b, blockCache))
	if err != nil {
		return nil, fmt.Errorf("pebblekv: open %q: %w", dir, err)
	}
	seed := maphash.MakeSeed()
	s := &Store{
		db: db, cache: newCache(opts.CacheEntries, b.writeBack, seed), filter: newKeyFilter(opts.FilterBytes, seed),
		writeBackBytes: b.writeBack, maxDirty: opts.MaxDirty,
	}
	if err := s.filterExisting(); err != nil {
		return nil, errors.Join(fmt.Errorf("pebblekv: open %q: %w", dir, err), db.Close())
	}
	return s, nil
}

// filterExisting adds every key of the database to the key filter. A
// database opened afresh, as by a restore, is empty and costs nothing.
func (s *Store) filterExisting() error {
	it, err := s.db.NewIter(nil)
	if err != nil {
		return err
	}
	for it.First(); it.Valid(); it.Next() {
		s.addToFilter(it.Key())
	}
	return it.Close()
}

// addToFilter adds key to the key filter and gives the cache the part of
// their shared budget that the filter does not take.
func (s *Store) addToFilter(key []byte) {
	s.filter.add(key)
	s.cache.maxBytes = s.writeBackBytes - s.filter.bytes
}

// Stats returns the current counters.
func (s *Store) Stats() Stats {
	st := s.stats
	st.Cached, st.Dirty = s.cache.len(), len(s.cache.dirty)
	st.CacheBytes, st.FilterBytes = s.cache.bytes, s.filter.bytes
	return st
}

// Get implements kv.Store. A key that is not cached is read from Pebble
// and cached, whether it exists or not.
func (s *Store) Get(key []byte) ([]byte, bool, error) {
	if s.closed {
		return nil, false, kv.ErrClosed
	}
	e := s.cache.lookup(key)
	if e != nil {
		s.stats.Hits++
	} else {
		s.stats.Misses++
		var err error
		if e, err = s.load(key); err != nil {
			return nil, false, err
		}
	}
	if e.flags&flagPresent == 0 {
		return nil, false, nil
	}
	return e.val, true, nil
}

// load reads key from Pebble into a new cache entry. When the key filter
// knows that Pebble lacks the key, Pebble is not asked.
func (s *Store) load(key []byte) (*entry, error) {
	if !s.filter.mayContain(key) {
		return s.insert(key)
	}
	s.stats.Reads++
	val, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return s.insert(key)
	}
	if err != nil {
		return nil, fmt.Errorf("pebblekv: get: %w", err)
	}
	e, err := s.insert(key)
	if err == nil {
		s.cache.setValue(e, val)
		e.flags |= flagPresent | flagFiltered
	}
	return e, errors.Join(err, closer.Close())
}

// Set implements kv.Store.
func (s *Store) Set(key, value []byte) error {
	if s.closed {
		return kv.ErrClosed
	}
	e, err := s.entryFor(key)
	if err != nil {
		return err
	}
	if s.obs != nil {
		s.noteSet(e, key, value)
	}
	// NB: value may alias e.val when it came from Get; append then
	// copies it onto itself, which is fine.
	s.cache.setValue(e, value)
	e.flags |= flagPresent
	return s.dirtied(e)
}

// Delete implements kv.Store. Deleting a key that is not cached does not
// read Pebble: the delete is written back blindly, unless the key is known
// to be absent from Pebble.
func (s *Store) Delete(key []byte) error {
	if s.closed {
		return kv.ErrClosed
	}
	e := s.cache.lookup(key)
	switch {
	case e == nil && !s.filter.mayContain(key):
		return nil
	case e == nil && s.obs != nil:
		// An observer must learn what the delete removes.
		var err error
		if e, err = s.load(key); err != nil || e.flags&flagPresent == 0 {
			return err
		}
	case e == nil:
		var err error
		if e, err = s.insert(key); err != nil {
			return err
		}
	case e.flags&(flagPresent|flagDirty) == 0:
		// A clean entry without a value means Pebble lacks the key.
		return nil
	}
	if s.obs != nil && e.flags&flagPresent != 0 {
		s.obs.Resized(key, -1, -len(key)-len(e.val))
	}
	e.val = e.val[:0]
	e.flags &^= flagPresent
	return s.dirtied(e)
}

// entryFor returns the cache entry of key, inserting one if needed. With
// an observer, a new entry is loaded, so that it says whether Pebble has
// the key and how long its value is.
func (s *Store) entryFor(key []byte) (*entry, error) {
	if e := s.cache.lookup(key); e != nil {
		return e, nil
	}
	if s.obs != nil {
		return s.load(key)
	}
	return s.insert(key)
}

// noteSet tells the observer what setting key, whose loaded entry is e, to
// value changes.
func (s *Store) noteSet(e *entry, key, value []byte) {
	switch {
	case e.flags&flagPresent == 0:
		s.obs.Resized(key, 1, len(key)+len(value))
	case len(value) != len(e.val):
		s.obs.Resized(key, 0, len(value)-len(e.val))
	}
}

// Observe implements kv.Observable. It writes dirty entries back and scans
// Pebble to report the keys already stored. From then on a Set or Delete
// of a key that is not cached reads it from Pebble, as a Get would, unless
// the key filter knows that Pebble lacks it: a blind overwrite of an
// evicted key costs a read. DeleteRange walks the whole range rather than
// at most the cache's worth of it.
func (s *Store) Observe(o kv.Observer) error {
	if s.closed {
		return kv.ErrClosed
	}
	if err := s.writeBack(); err != nil {
		return err
	}
	it, err := s.db.NewIter(nil)
	if err != nil {
		return fmt.Errorf("pebblekv: observe: %w", err)
	}
	for it.First(); it.Valid(); it.Next() {
		o.Resized(it.Key(), 1, len(it.Key())+len(it.Value()))
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("pebblekv: observe: %w", err)
	}
	s.obs = o
	return nil
}

// insert adds a clean, absent entry for key, evicting entries first while
// the cache is full.
func (s *Store) insert(key []byte) (*entry, error) {
	for s.cache.full() && s.cache.len() > 0 {
		if s.cache.evictOne() {
			continue
		}
		// Every entry is dirty, which a MaxDirty below the capacity
		// usually prevents; write them back so that they can be evicted.
		if err := s.writeBack(); err != nil {
			return nil, err
		}
	}
	return s.cache.insert(key), nil
}

// dirtied marks e dirty and writes back once there are enough dirty
// entries.
func (s *Store) dirtied(e *entry) error {
	s.cache.markDirty(e)
	if s.tracking {
		s.cache.markChanged(e)
	}
	if len(s.cache.dirty) < s.maxDirty {
		return nil
	}
	return s.writeBack()
}

// writeBack writes every dirty entry to Pebble in one batch and marks the
// entries clean. On error they stay dirty.
func (s *Store) writeBack() error {
	if len(s.cache.dirty) == 0 {
		return nil
	}
	// NB: Pebble inserts a batch into its memtable's skiplist key by key.
	// In key order, consecutive searches share their path through the
	// skiplist and stay in the CPU cache, which halves the cost of a
	// write-back of random keys.
	s.cache.sortDirty()
	b := s.db.NewBatch()
	defer b.Close()
	for _, i := range s.cache.dirty {
		e := &s.cache.entries[i]
		// NB: a key deleted before Pebble ever had it needs no delete:
		// one would only add a tombstone. Keys set and deleted between
		// two write-backs are common (a window's accumulator and its
		// timer live a few seconds), and their tombstones were half of
		// the write-backs of Nexmark q5 (RATIONALE.md).
		if e.flags&(flagPresent|flagFiltered) == 0 && !s.filter.mayContain(e.keyBytes()) {
			continue
		}
		if err := s.addToBatch(b, e); err != nil {
			return err
		}
		s.stats.Written++
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("pebblekv: write back %d entries: %w", len(s.cache.dirty), err)
	}
	for _, i := range s.cache.dirty {
		e := &s.cache.entries[i]
		if e.flags&(flagPresent|flagFiltered) == flagPresent {
			// NB: the cache and the filter hash with one seed.
			s.filter.addHash(e.hash)
			e.flags |= flagFiltered
		}
		e.flags &^= flagDirty
	}
	s.cache.maxBytes = s.writeBackBytes - s.filter.bytes
	s.cache.dirty = s.cache.dirty[:0]
	s.stats.WriteBacks++
	return nil
}

// addToBatch adds the write that makes Pebble match e.
func (s *Store) addToBatch(b *pebble.Batch, e *entry) error {
	var err error
	if e.flags&flagPresent != 0 {
		err = b.Set(e.keyBytes(), e.val, nil)
	} else {
		err = b.Delete(e.keyBytes(), nil)
	}
	if err != nil {
		return fmt.Errorf("pebblekv: batch: %w", err)
	}
	return nil
}

// Flush implements kv.Store. It writes the dirty entries back and then
// flushes Pebble's memtable to a synced table, because the WAL is off
// (see the package documentation).
func (s *Store) Flush() error {
	if s.closed {
		return kv.ErrClosed
	}
	if err := s.writeBack(); err != nil {
		return err
	}
	if err := s.db.Flush(); err != nil {
		return fmt.Errorf("pebblekv: flush: %w", err)
	}
	return nil
}

// Close implements kv.Store. It flushes first, so that a Store reopened on
// the same directory sees every write.
func (s *Store) Close() error {
	if s.closed {
		return kv.ErrClosed
	}
	flushErr := s.Flush()
	s.closed = true
	s.cache = cache{last: -1}
	if err := s.db.Close(); err != nil {
		return errors.Join(flushErr, fmt.Errorf("pebblekv: close: %w", err))
	}
	return flushErr
}
