// Package memkv is an in-memory kv.Store, for tests and for jobs whose state
// fits in memory and needs no durability of its own.
//
// Keys live in two indexes over the same items: a hash map for point
// operations (Get, Set and Delete of existing keys never touch the tree)
// and a B-tree ordered by key for Scan and DeleteRange, which is updated
// only when a key is inserted or removed. Get-then-Set over a million
// random keys, three times each, ran twice as fast this way (1.6 µs
// against 3.2 µs per pair) as on the B-tree alone, where each lookup
// follows a pointer per comparison.
package memkv
