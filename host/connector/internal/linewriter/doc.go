// Package linewriter holds the output side shared by the file and stdout
// sinks without checkpoints: a Writer that buffers one subtask's lines and
// hands them to an io.Writer only at record boundaries, so that whoever reads
// the output (a file's reader, a terminal, a pipe) never sees a partial line
// once a flush is over.
//
// A Writer flushes when its buffer passes its size after a whole batch, on
// Flush and Close, and every flush interval from a goroutine it owns. The
// task loop calls a sink only when records arrive, so the goroutine is what
// makes the tail of an idle input visible: a line reaches the io.Writer at
// most one interval after it was written, whatever the input does next.
// The goroutine and the task loop take the same lock; Close stops the
// goroutine and waits for it before the final flush.
package linewriter
