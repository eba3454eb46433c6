package kv

// Observer is told how each write changes what a Store holds, so that the
// owner of the store can keep the size of its state without scanning it.
//
// Sizes are of the entries as stored: one key per entry, and the bytes of
// each are len(key)+len(value).
type Observer interface {
	// Resized reports one write's change: keys is +1 when it stored a key
	// that was absent, -1 when it removed a present one and 0 otherwise;
	// bytes is the change in len(key)+len(value) of the entries. key is
	// valid only during the call, which must not call the Store. It is
	// called on the goroutine that writes, and never for a write that
	// changes nothing.
	Resized(key []byte, keys, bytes int)
}

// Observable is a Store that can report its changes to an Observer.
type Observable interface {
	Store
	// Observe makes o the Store's observer and reports every key already
	// stored to it as a new one (keys 1). Later writes are reported as
	// they happen; a later Observe replaces o. Stores that otherwise write
	// blindly may read to learn what a write replaces: see their
	// documentation for what observing costs.
	Observe(o Observer) error
}

// ChangeTracker is a Store that remembers which keys were written since it
// last reported them, so that its owner can snapshot only those (an
// incremental checkpoint) without keeping a set of keys of its own.
type ChangeTracker interface {
	Store
	// TrackChanges starts remembering the keys that Set and Delete write,
	// and forgets those remembered so far. DeleteRange is not tracked:
	// its owner records ranges itself.
	TrackChanges()
	// Changes calls fn once for every key written since TrackChanges or
	// the previous Changes, in no order, with its current value and
	// whether it has one, and forgets it. key and value are valid only
	// during the call, which must not call the Store. An error from fn
	// or the Store stops Changes and is returned; which of the keys not
	// yet reported are still remembered is then unspecified, so the
	// owner's next snapshot must be a full one.
	Changes(fn func(key, value []byte, present bool) error) error
}

// Snapshotter is a Store that can take a consistent read-only view of what
// it holds, for a checkpoint to read while the Store goes on changing.
type Snapshotter interface {
	Store
	// Snapshot returns a view of every write made so far. The caller must
	// close it before closing the Store. The view may be read on another
	// goroutine while the Store is used.
	Snapshot() (View, error)
}

// View is a Snapshotter's read-only view. It is used by one goroutine at a
// time.
type View interface {
	// Scan is Store.Scan on the view.
	Scan(start, end []byte, fn func(k, v []byte) error) error
	// Close releases the view.
	Close() error
}

// Writer is the writing part of a Store.
type Writer interface {
	Set(key, value []byte) error
	Delete(key []byte) error
	DeleteRange(start, end []byte) error
}

// Loader is a Store that can take many writes at once, as a restore makes,
// more cheaply than one Set at a time: a cache in front of the store can
// be bypassed for keys nobody has read yet.
type Loader interface {
	Store
	// Load calls fn with a Writer whose writes go to the Store as if made
	// by the Store's own methods, in order: an Observer is told of each,
	// and a ChangeTracker that is tracking remembers them. fn must not
	// call the Store itself, and the Writer is valid only during the
	// call. Within one Load a key is written at most once, except that a
	// range deletion may precede a write in its range; a snapshot file's
	// operations are so. The writes are all visible once Load returns
	// nil. When it fails, any subset of them may have been made and the
	// Observer may have been told of some that were not, so the owner
	// must discard the Store, as a failed restore does. An error from fn
	// is returned as is.
	Load(fn func(w Writer) error) error
}
