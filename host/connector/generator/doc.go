// Package generator holds a source of synthetic records, for tests, demos and
// benchmarks.
//
// A generator of kind "sequence" emits the decimal numbers 0, 1, 2, ... as
// record values; with parallelism n, subtask i emits the numbers that are
// congruent to i modulo n, in increasing order. A generator of kind "random"
// emits values "key-000123,<padding>" whose key number is drawn uniformly
// from Keys distinct ones and whose total size is about Size bytes.
//
// Count bounds the total number of records across all subtasks: subtask i of
// n emits Count/n records, plus one if i < Count%n, so the union over the
// subtasks is exactly Count records (for "sequence", exactly 0..Count-1).
// Count 0 makes the generator unbounded. Rate caps the records per second of
// the whole generator; each subtask gets an equal share.
//
// The k-th record of a subtask is a pure function of the configuration, the
// subtask and k: random draws come from a SplitMix64 stream seeded by Seed and
// the subtask, indexed by k.
//
// # Positions and rescaling
//
// Each subtask's share is a split, and a split's state is the triple (subtask
// j, parallelism n, records emitted k): it describes itself, so an instance
// of any SplitInfo restored with it by Seek continues that split's own
// stream: for "sequence" the numbers congruent to j modulo n from the k-th
// on, for "random" the k-th draw on of j's stream, and for a bounded
// generator up to the split's share of Count. Position lists the states of
// the splits an instance holds, exhausted ones included, so the states of all
// instances can be redistributed over a new parallelism (with
// connector.EvenSplit) without losing or repeating a record. An instance with
// several splits takes each batch from the next split in turn, so that every
// split of an unbounded generator advances; one with none ends at once when
// bounded and idles when not. Rate stays divided by the instance's own
// Parallelism.
//
// Records carry no key and record.NoTimestamp.
package generator
