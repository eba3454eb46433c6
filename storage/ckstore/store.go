package ckstore

import (
	"context"
	"io"

	"github.com/floe-stream/floe/storage/ckstore/internal/object"
)

// Errors that Store methods wrap, for callers to test with errors.Is.
var (
	// ErrNotFound: Get or Stat found no object at the path.
	ErrNotFound = object.ErrNotFound
	// ErrInvalidPath: the path or prefix breaks the rules in the package
	// documentation. The store was not touched.
	ErrInvalidPath = object.ErrInvalidPath
	// ErrSizeMismatch: a Put's reader did not hold the number of bytes
	// its size promised. Nothing was stored.
	ErrSizeMismatch = object.ErrSizeMismatch
)

// Store holds checkpoint objects under slash-separated paths relative to
// its root. All methods are safe for concurrent use; Puts of different
// paths proceed in parallel, and concurrent Puts of one path leave one of
// them whole.
//
// Errors name the operation and the object's URL, never credentials. An
// error from ctx is wrapped, so errors.Is(err, context.Canceled) works.
type Store interface {
	// Put stores the bytes of r at path, replacing any object there.
	// size is the number of bytes r holds, or -1 if unknown; knowing it
	// saves memory and round trips. Put reads r to its end (or size) and
	// does not close it; r belongs to the caller again when Put returns.
	//
	// Put is atomic: until it returns nil, readers see the previous object
	// or none, never part of the new one. On error (including a reader
	// that fails, one whose length is not size (ErrSizeMismatch), or a
	// cancelled ctx) the previous object, if any, is still there and
	// nothing of the new one is visible. Once Put returns nil the object
	// is durable.
	Put(ctx context.Context, path string, r io.Reader, size int64) error

	// Get opens the object at path for reading, or fails wrapping
	// ErrNotFound. The caller must close the reader. It may stream from
	// the network, so it is only good while ctx is, and a read can fail
	// midway; it yields exactly the object's bytes or an error.
	Get(ctx context.Context, path string) (io.ReadCloser, error)

	// Stat returns the object's size in bytes, or fails wrapping
	// ErrNotFound.
	Stat(ctx context.Context, path string) (size int64, err error)

	// List returns the full paths of all objects that start with prefix,
	// in ascending byte order. The prefix is a plain string prefix: "a/b"
	// matches "a/b/c" and "a/bc", "a/b/" only the first. An empty prefix
	// lists everything. The listing reflects every Put and Delete that
	// returned before List was called; ones running meanwhile may or may
	// not show.
	List(ctx context.Context, prefix string) ([]string, error)

	// Delete removes the object at path. A missing object is not an
	// error.
	Delete(ctx context.Context, path string) error

	// String returns the store's URL, free of secrets, for messages.
	String() string
}

// RangeReader is implemented by stores that can read part of an object, so
// a restore fetches only the key groups it owns.
type RangeReader interface {
	// GetRange returns bytes [off, off+n) of the object at path. The
	// caller closes the reader.
	GetRange(ctx context.Context, path string, off, n int64) (io.ReadCloser, error)
}
