// Package keygroup implements Flink's key-group scheme, which decides which
// parallel subtask owns a key and lets keyed state be rescaled.
//
// A job has a fixed maximum parallelism M (at most MaxParallelismLimit).
// Every key is hashed once into one of M key groups with Of. Key groups, not
// keys, are the unit of state ownership: subtask i of an operator running
// with parallelism P owns the contiguous key-group Range returned by
// RangeFor(M, P, i), and SubtaskFor is the inverse mapping that the network
// exchange uses to route a record. Because ranges are contiguous and the
// state layer stores the key group as the leading bytes of every state key,
// the state of one subtask is one contiguous key range on disk.
//
// When a job is rescaled from P to P', each new subtask restores the state
// of every old range that Intersect says overlaps its new range; the ranges
// of any two parallelisms tile [0, M) so every key group is restored exactly
// once.
//
// The arithmetic is exactly Flink's KeyGroupRangeAssignment, so the layout
// of a savepoint can be reasoned about with Flink's rules. The key hash is
// MurmurHash3 (x86, 32-bit, seed 0) of the key bytes; unlike Flink it hashes
// the serialized key rather than a Java hashCode.
package keygroup
