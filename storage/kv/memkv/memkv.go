package memkv

import (
	"unsafe"

	"github.com/google/btree"

	"github.com/floe-stream/floe/storage/kv"
)

// btreeDegree is the B-tree's branching factor; 32 is google/btree's own
// recommendation for in-memory use.
const btreeDegree = 32

// item is one key-value pair, shared by both indexes. The key never
// changes; val is overwritten in place when its capacity allows.
type item struct {
	key string
	val []byte
}

// Store is an in-memory kv.Store. Like every kv.Store it is used by one
// goroutine at a time.
type Store struct {
	items map[string]*item
	tree  *btree.BTreeG[*item]
	// last is the item of the latest point operation, or nil. State is
	// mostly read, modified and written back, so a Set usually finds its
	// key here without hashing it.
	last   *item
	probe  item        // probe is the search key of Scan and DeleteRange.
	doomed []*item     // doomed is DeleteRange's reusable list of victims.
	obs    kv.Observer // obs is told of every change; nil when none is.
	closed bool
}

var _ kv.Observable = (*Store)(nil)

// New returns an empty Store.
func New() *Store {
	return &Store{
		items: make(map[string]*item),
		tree:  btree.NewG(btreeDegree, func(a, b *item) bool { return a.key < b.key }),
	}
}

// Get implements kv.Store. The value is the Store's own buffer.
func (s *Store) Get(key []byte) ([]byte, bool, error) {
	if s.closed {
		return nil, false, kv.ErrClosed
	}
	it := s.find(key)
	if it == nil {
		return nil, false, nil
	}
	return it.val, true, nil
}

// find returns the item of key, or nil.
func (s *Store) find(key []byte) *item {
	if s.last != nil && s.last.key == string(key) {
		return s.last
	}
	if it, ok := s.items[string(key)]; ok {
		s.last = it
		return it
	}
	return nil
}

// Set implements kv.Store.
func (s *Store) Set(key, value []byte) error {
	if s.closed {
		return kv.ErrClosed
	}
	if it := s.find(key); it != nil {
		if s.obs != nil && len(value) != len(it.val) {
			s.obs.Resized(key, 0, len(value)-len(it.val))
		}
		it.val = append(it.val[:0], value...)
		return nil
	}
	it := &item{key: string(key), val: clone(value)}
	s.items[it.key] = it
	s.tree.ReplaceOrInsert(it)
	s.last = it
	if s.obs != nil {
		s.obs.Resized(key, 1, len(key)+len(value))
	}
	return nil
}

// Observe implements kv.Observable. Observing costs a call for each write
// that adds or removes a key or changes the length of a value.
func (s *Store) Observe(o kv.Observer) error {
	if s.closed {
		return kv.ErrClosed
	}
	s.obs = o
	s.tree.Ascend(func(it *item) bool {
		o.Resized(unsafe.Slice(unsafe.StringData(it.key), len(it.key)), 1, len(it.key)+len(it.val))
		return true
	})
	return nil
}

// Delete implements kv.Store.
func (s *Store) Delete(key []byte) error {
	if s.closed {
		return kv.ErrClosed
	}
	if it := s.find(key); it != nil {
		s.remove(it)
	}
	return nil
}

// DeleteRange implements kv.Store. It costs O(log n) plus the number of
// keys removed.
func (s *Store) DeleteRange(start, end []byte) error {
	if s.closed {
		return kv.ErrClosed
	}
	s.doomed = s.doomed[:0]
	s.ascend(start, end, func(it *item) bool {
		s.doomed = append(s.doomed, it)
		return true
	})
	for i, it := range s.doomed {
		s.remove(it)
		s.doomed[i] = nil
	}
	return nil
}

// Scan implements kv.Store.
func (s *Store) Scan(start, end []byte, fn func(k, v []byte) error) error {
	if s.closed {
		return kv.ErrClosed
	}
	var err error
	s.ascend(start, end, func(it *item) bool {
		err = fn(unsafe.Slice(unsafe.StringData(it.key), len(it.key)), it.val)
		return err == nil
	})
	return err
}

// Flush implements kv.Store; memory is not durable, so it does nothing.
func (s *Store) Flush() error {
	if s.closed {
		return kv.ErrClosed
	}
	return nil
}

// Close implements kv.Store and drops all data.
func (s *Store) Close() error {
	if s.closed {
		return kv.ErrClosed
	}
	*s = Store{closed: true}
	return nil
}

// Len returns the number of keys in the store.
func (s *Store) Len() int {
	return len(s.items)
}

// ascend calls fn for the items in [start, end) in order until fn returns
// false; a nil end means no upper bound.
func (s *Store) ascend(start, end []byte, fn func(*item) bool) {
	// NB: the probe's key aliases start without copying. It is only used
	// for the duration of this call, during which start does not change.
	s.probe.key = unsafe.String(unsafe.SliceData(start), len(start))
	defer func() { s.probe.key = "" }()
	if end == nil {
		s.tree.AscendGreaterOrEqual(&s.probe, fn)
		return
	}
	endKey := unsafe.String(unsafe.SliceData(end), len(end))
	s.tree.AscendGreaterOrEqual(&s.probe, func(it *item) bool {
		return it.key < endKey && fn(it)
	})
}

// remove deletes it from both indexes.
func (s *Store) remove(it *item) {
	if s.obs != nil {
		s.obs.Resized(unsafe.Slice(unsafe.StringData(it.key), len(it.key)), -1, -len(it.key)-len(it.val))
	}
	delete(s.items, it.key)
	s.tree.Delete(it)
	if s.last == it {
		s.last = nil
	}
}

// clone returns a copy of b that never aliases it, even when b is empty.
func clone(b []byte) []byte {
	return append(make([]byte, 0, len(b)), b...)
}
