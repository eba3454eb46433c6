// Package kv defines Store, the ordered byte key-value store that keyed
// state is kept in, and the contract its implementations share.
//
// Two implementations exist: memkv keeps everything in memory, pebblekv
// keeps it in a Pebble LSM on disk behind a write-back cache. The
// conformance suite in kvtest runs against both, so state code can be
// tested on memkv and trusted on pebblekv.
//
// Keys are compared as raw bytes (bytes.Compare). The state package lays
// keys out so that all the state of a key-group range is one contiguous key
// range, which is what Scan and DeleteRange operate on.
//
// # Sizes
//
// Both stores are Observable: they tell an Observer how many keys and
// bytes each write adds or removes, which the state package sums per
// namespace into the live state size of each operator. A store knows what
// a write replaces in most cases already (memkv always, pebblekv from its
// cache entry); the exceptions are documented where they cost something.
//
// # Bulk loads
//
// A restore writes millions of keys that nobody has read yet. pebblekv is
// a Loader: it takes them straight into Pebble in batches rather than
// through its cache, keeping its key filter, its Observer and its change
// tracking right; the state package's Restore uses it per snapshot file.
//
// # Concurrency
//
// A Store belongs to the task that owns the state: no method may be called
// concurrently with another. This is what lets Get hand out its internal
// buffer and lets pebblekv update its cache on reads without locks of its
// own. Queryable-state lookups, which run on other goroutines, do not read
// beside the task: they take the task's state gate (host/task), which the
// task hands over only between two of its own state operations, so every
// call on a Store is still made by one goroutine at a time, ordered by that
// lock. A lookup copies what Get returns before it lets the gate go.
package kv
