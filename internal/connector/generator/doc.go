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
// the subtask, indexed by k. So a Position is just the number of records the
// subtask has emitted, and Seek resumes the same stream exactly.
//
// Records carry no key and record.NoTimestamp.
package generator
