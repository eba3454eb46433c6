// Package file holds the file connectors: a source that reads a text file line
// by line, and a sink that writes lines into part files of a directory.
//
// # Source
//
// Each line of the file becomes one record whose Value is the line without
// its "\n" (and without the "\r" of a "\r\n"); a last line without a newline
// is a record too. Records carry no key and record.NoTimestamp.
//
// In bounded mode the file is split by byte range: subtask i of n owns the
// lines that start in [i*size/n, (i+1)*size/n), where size is the file's size
// when it was opened. A line that straddles a boundary belongs to the split
// where it starts, so every line is read exactly once across the subtasks,
// whatever their number. To find its first line a subtask skips the tail of
// the line that began before its range; it then reads on until the next line
// would start at or after the end of its range.
//
// In follow mode the source is unbounded, like tail -f: it reads the file from
// the beginning, then polls for appended data every PollInterval and never
// returns io.EOF. A last line without its newline yet is held back until the
// newline arrives. The file cannot be split while it grows, so there is a
// single follow split, which a fresh subtask 0 holds; the other subtasks idle,
// returning empty batches, until their context is done. Truncation or
// replacement of a followed file is not detected.
//
// A rate limit applies to the whole source: in bounded mode each subtask gets
// an equal share of it, in follow mode every subtask may use all of it, since
// only the one holding the follow split reads.
//
// # Positions and rescaling
//
// Position returns one self-describing state per split the instance holds:
// the split's byte range [start, end) and the offset of the next line to
// emit. The follow split is the range [0, +inf) with the reader's offset.
// Seek replaces an instance's splits with any such states, so the states of
// all instances at one parallelism can be redistributed over another (with
// connector.EvenSplit); an instance reads its splits one after another, and
// one given none reads nothing. Exhausted splits stay in the list.
//
// Restored splits keep the ranges they recorded, even if the file changed
// size in between: lines appended after the checkpoint, beyond the end of the
// last bounded split, are not read, and a split of a file that shrank reads
// what is left of its range. Follow mode reads appended lines, as ever.
//
// # Sink
//
// The sink's path is a directory, created if missing; subtask i writes the
// file named PartName(i), for example part-00000, through a large buffer.
// Opening a sink truncates a part file left by an earlier run.
//
// Without checkpoints the part file grows by whole lines only: the buffer is
// written in one call, at a record boundary, when it passes its size, and
// every FlushInterval from a goroutine of the sink, so that the tail of an
// input that went idle reaches the file too (package linewriter). With
// checkpoints the transactional sink writes a file per checkpoint, which
// becomes visible when the checkpoint completes; FlushInterval plays no part.
//
// # Buckets
//
// With SinkConfig.Buckets the sink writes each record into the bucket
// directory its event time names (bucket.go): a Go time layout applied to
// the record's timestamp in UTC, such as "dt=2006-01-02/hm=15:04". A record
// without a timestamp fails the write. A subtask keeps a file open in at
// most MaxOpen buckets; writing to one more closes the one written least
// recently. Without checkpoints a bucket's file is PartName(i), truncated
// when the run first opens it and appended to when it is reopened. With
// checkpoints each bucket written in a checkpoint interval gets its own
// in-progress file (a closed one stays in progress), all sealed by the
// checkpoint and committed with it; the sink's state names them by their
// path below the directory, so a restore commits and discards exactly as
// without buckets. A fresh start (not a restore) removes the subtask's
// files in every directory below the sink's.
package file
