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
