// Package kafka holds the Kafka connectors, built on franz-go: a source
// whose read position survives failures and rescales, and a sink that is
// at least once or, through Kafka transactions, exactly once.
// docs/connectors.md is the user's reference; this is how the pieces fit.
//
// # Source
//
// A source's list state holds two kinds of element (split.go): a
// partition, with the offset of the next record to emit, and a claim rule.
// A fresh source of subtask i of n holds rule (n, i), which owns every
// partition p of topic t with (fnv32a(t) + p) mod n == i, and records per
// topic how many partitions it has looked at. Rules are list elements, so
// EvenSplit moves them with the offsets, and exactly one subtask holds each
// at any time. That answers the question a restored subtask cannot answer
// otherwise: is a partition that no element of mine covers new, or held by
// another subtask? It is new exactly when its rule's count has not reached
// it, and only the holder of that rule claims it.
//
// The first Next connects (source.go): the client consumes the partitions
// of the elements, and a discoverer goroutine (discover.go) lists the
// topics at once and then every discovery interval, resolving start
// offsets for rules not yet started. Its listings reach the task's
// goroutine through a channel, and claiming happens there, so the list
// state has one owner. Next returns what franz-go has fetched within
// PollWait and advances each partition's offset past the records it
// returns and the transaction markers it skips, so Position, which does no
// I/O, is always exact.
//
// PositionFor and CheckpointComplete (commit.go) let the task say which
// checkpoint a position belongs to and when it completes; a committer
// goroutine then commits that position's offsets to the consumer group,
// for monitoring.
//
// # Sinks
//
// The at-least-once sink (sink.go) is an idempotent producer whose
// PreCommit flushes. The exactly-once sink (txsink.go) opens a transaction
// per checkpoint interval, with a fresh producer under the transactional id
// of the next of Slots slots of its subtask, seals it in PreCommit by
// recording its producer id and epoch, and commits it in Commit with a raw
// EndTxn for that id and epoch (franz-go's EndTransaction may end a commit
// with an abort and report success). Recover (txn.go) commits the sealed
// transactions of a restored checkpoint the same way, then fences every slot of the
// subtasks it takes over with a raw InitProducerID, which aborts what a
// crashed attempt left open and shuts out its zombies.
//
// Records are produced with a context per Write that expires after the
// delivery timeout: franz-go's own record timeout counts from a record's
// timestamp, which here is its event time.
package kafka
