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
// newline arrives. The file cannot be split while it grows, so only subtask 0
// reads; the other subtasks idle, returning empty batches, until their context
// is done. Truncation or replacement of a followed file is not detected.
//
// A rate limit applies to the whole source: in bounded mode each subtask gets
// an equal share of it, in follow mode the single reader gets all of it.
//
// A Position holds the byte offset just after the last line emitted and the
// end of the subtask's range, so Seek resumes the same split exactly.
//
// # Sink
//
// The sink's path is a directory, created if missing; subtask i writes the
// file named PartName(i), for example part-00000, through a large buffer.
// Opening a sink truncates a part file left by an earlier run.
package file
