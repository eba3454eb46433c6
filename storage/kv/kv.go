package kv

import "errors"

// ErrClosed is returned by every method of a Store after Close.
var ErrClosed = errors.New("kv: store is closed")

// Store is an ordered map from byte keys to byte values. It is used by a
// single goroutine; see the package documentation.
type Store interface {
	// Get returns the value stored under key and whether there is one.
	// The returned slice belongs to the Store and is valid only until the
	// next call of any method on it; copy it to keep it. The caller must
	// not modify it.
	Get(key []byte) (value []byte, ok bool, err error)

	// Set stores value under key, replacing any previous value. The Store
	// copies key and value; the caller may reuse both when Set returns.
	Set(key, value []byte) error

	// Delete removes key. Deleting a missing key is not an error.
	Delete(key []byte) error

	// DeleteRange removes every key k with start <= k < end. The Store
	// does not keep start or end.
	DeleteRange(start, end []byte) error

	// Scan calls fn for each key k with start <= k < end in ascending byte
	// order, where a nil end means no upper bound. A Scan sees every write
	// made before it. k and v are valid only during the call of fn, which
	// must not modify them and must not call methods on the Store. If fn
	// returns an error the scan stops and Scan returns that error
	// unwrapped.
	Scan(start, end []byte, fn func(k, v []byte) error) error

	// Flush makes every write made so far durable, so that a Store
	// reopened on the same files sees it. It is a no-op for stores that
	// are not durable.
	Flush() error

	// Close flushes and releases the Store. Later calls of any method
	// return ErrClosed; closing twice returns ErrClosed.
	Close() error
}
