// Package state is typed keyed state — value, list and map state — laid
// out by key group over a kv.Store.
//
// An operator opens a handle per state at startup (Backend.Value, List or
// Map, named by a namespace "<operator uid>/<state name>") and then reads
// and writes the state of the current record's key through it, passing the
// key group that keygroup.Of computed for the key. All bytes are opaque to
// this package: serialization belongs to the operator.
//
// # Key layout
//
// The layout below is the on-disk format that checkpoints and rescaling
// depend on; changing it breaks every existing checkpoint.
//
//	key group  2 bytes, big-endian
//	namespace  1 byte length n (1..255), then n bytes
//	user key   uvarint length, then the bytes
//	map key    the remaining bytes (map state only; empty otherwise)
//
// Because the key group comes first, all state of a key-group range is one
// contiguous key range (KeyGroupSpan), which a snapshot scans and a rescale
// copies or deletes as a whole. Within a key group, the entries of one
// namespace and one user key are contiguous too, so a map state's entries
// for a key are one range, ordered by map key. Length prefixes keep keys
// that are prefixes of each other ("a", "ab") apart.
//
// A value state stores the value as is. A list state stores the whole list
// under one key as a sequence of elements, each a uvarint length and the
// bytes; appending reads, extends and rewrites it, which the store's cache
// makes cheap. A map state stores one store entry per map key.
//
// # Ownership and concurrency
//
// A Backend owns its store and, like it, is used by one goroutine. Slices
// that a read returns or passes to a callback are valid only until the next
// call on the Backend. List.Get and Map.Iter copy the state before calling
// back, so their callbacks may use the Backend freely; ScanRange does not,
// and its callback must not call the Backend.
//
// # Snapshots
//
// With TrackChanges on, a snapshot is full or a delta since the previous
// one. TakeSnapshot is the part that runs on the Backend's goroutine: it
// takes the state out of the store (a delta's keys and values copied, a
// full snapshot as a view of a kv.Snapshotter store), and Capture.Write
// encodes it on any goroutine while the Backend goes on changing. Stores
// that track their changed keys (kv.ChangeTracker) spare the Backend a set
// of keys of its own.
package state
