package connector

import (
	"time"

	"context"
	"errors"
	"fmt"

	"github.com/floe-stream/floe/host/record"
)

// Source produces one subtask's share of a stream in batches. A Source is not
// safe for concurrent use: the task calls all its methods from one goroutine.
type Source interface {
	// Next appends up to max records to b, which the caller has Reset, and
	// returns nil. max must be positive. The records' bytes are copied into b,
	// so the source keeps no reference to them and b owns them.
	//
	// A bounded source returns io.EOF, with b left empty, on the first call
	// after it has returned its last record: records never come together
	// with io.EOF, and every later call returns io.EOF again.
	//
	// An unbounded source that has nothing to emit returns nil with b empty
	// within about 100 ms, so that the task loop can take checkpoints and
	// notice cancellation between calls; Next never blocks longer than that.
	// When ctx is done, Next returns ctx.Err() promptly with b empty.
	//
	// Any other error is a failure of the underlying system, wrapped with the
	// name of the resource; the caller should Close the source.
	Next(ctx context.Context, b *record.Batch, max int) error

	// Position returns the states of the splits this instance reads: one
	// self-describing element per split, each an opaque encoding of the
	// split and of how far it has been read. Restoring the elements with
	// Seek, into one instance or spread over several, resumes each split
	// right after the last record that Next returned from it before the
	// call to Position. The list is the source's operator list state: at a
	// rescale it is redistributed with EvenSplit.
	//
	// The list is non-nil, possibly empty (an instance with no split), and
	// keeps the splits that are exhausted, so that the state of a source
	// never vanishes. The list and its elements belong to the caller.
	Position() ([][]byte, error)

	// Seek replaces the splits this instance reads with splits, elements
	// returned by Position of instances of a source with the same
	// configuration, whatever their SplitInfo. The instance then reads
	// exactly those splits, in its own order, and not the share its
	// SplitInfo names. With no splits it reads nothing: a bounded source
	// returns io.EOF at once, an unbounded one idles. Seek is meant to be
	// called before the first Next. It does not retain the slices. A
	// malformed element yields an error wrapping ErrBadPosition, and the
	// instance keeps its splits.
	Seek(splits [][]byte) error

	// Close releases the source's resources, such as open files. Calling any
	// method after Close returns an error wrapping ErrClosed.
	Close() error
}

// Sink consumes one subtask's share of a stream in batches. A Sink is not
// safe for concurrent use: the task calls all its methods from one goroutine.
type Sink interface {
	// Write writes the Value of each record of b, in order, as one line: the
	// value followed by "\n". Keys and timestamps are not written, and a value
	// that itself holds "\n" is written as it is. Write does not retain b, so
	// the caller may Reset it once Write returns. Output may stay buffered
	// until Flush or Close, or until the sink flushes on its own: the task
	// loop calls a sink only when records arrive, so a sink that must show
	// an idle input's tail flushes on a timer (file and stdout do).
	Write(b *record.Batch) error

	// Flush pushes buffered output to the operating system (or, for a sink
	// over an io.Writer, to that writer).
	Flush() error

	// Close flushes and releases what the sink owns. Calling any method after
	// Close returns an error wrapping ErrClosed.
	Close() error
}

// SplitInfo tells a parallel instance of a connector which share of the
// stream it owns: share Subtask of Parallelism equal shares. A source
// restored with Seek reads the splits it is given instead, but still paces
// itself as one of Parallelism instances.
type SplitInfo struct {
	Subtask, Parallelism int
}

// Validate returns an error unless Parallelism is at least 1 and Subtask
// lies in [0, Parallelism).
func (s SplitInfo) Validate() error {
	if s.Parallelism < 1 || s.Subtask < 0 || s.Subtask >= s.Parallelism {
		return fmt.Errorf("connector: invalid split: subtask %d of parallelism %d", s.Subtask, s.Parallelism)
	}
	return nil
}

// ErrClosed is returned, wrapped, by the methods of a closed source or sink.
var ErrClosed = errors.New("connector: closed")

// ErrBadPosition is returned, wrapped, by Seek when a split state cannot have
// come from Position of the same kind of source with the same configuration.
var ErrBadPosition = errors.New("connector: malformed position")

// CheckNext returns the error that Next must return before doing any work:
// ErrClosed if closed is set, an error if max is not positive, or ctx.Err().
func CheckNext(ctx context.Context, closed bool, max int) error {
	switch {
	case closed:
		return ErrClosed
	case max < 1:
		return fmt.Errorf("connector: Next called with max %d, want at least 1", max)
	}
	return ctx.Err()
}

// Transactional is a sink whose output becomes visible only when the
// checkpoint that covers it completes, so that after a failure and a
// restore from that checkpoint no record is visible twice.
type Transactional interface {
	Sink
	// PreCommit seals what was written since the last call as part of
	// checkpoint id, and returns the sink's state at the checkpoint: what a
	// restore from it must commit, and where the output then stood.
	PreCommit(id int64) ([]byte, error)
	// Commit makes visible every piece sealed for checkpoints up to id.
	Commit(id int64) error
	// Recover, called before the first Write of a restored task, commits
	// what the restored states say (its own, or after a rescale those of
	// the old subtasks it takes over) and discards everything written after
	// that checkpoint by those subtasks, committed or not: a restore may go
	// back to a checkpoint older than the latest when the latest cannot be
	// read.
	Recover(states [][]byte) error
}

// SplitReporter is a source whose records come from several splits that
// each advance in event time on their own, such as Kafka partitions. The
// task then keeps a watermark per split and takes their minimum, so that a
// partition that lags does not see its records arrive late.
type SplitReporter interface {
	// RecordSplits returns, for each record of the batch the last call to
	// Next filled, a small integer that names its split, the same for the
	// life of the source. The slice is valid until the next call to Next.
	RecordSplits() []int
}

// Progress is a source that can tell how much of its input it has read,
// for metrics. BytesRead is called from other goroutines than the one that
// calls Next, while the source runs, so it reads only what the source
// keeps in atomics or under a lock of its own.
type Progress interface {
	// BytesRead returns the bytes of input the source has read, and the
	// size of its whole input, or -1 when unknown (an unbounded source).
	BytesRead() (read, total int64)
}

// Throttled is a source that waits on a rate limit of its own (a
// rate-limited generator): Throttled returns the time it has spent waiting
// so, in all. The task counts that time as idle, not busy, so that the
// autoscaler sees the source's true rate. It is called from the goroutine
// that calls Next.
type Throttled interface {
	Throttled() time.Duration
}

// Paced is a source held to a configured rate (a rate-limited generator,
// maybe on a rate schedule): Rate returns the records per second it may
// emit now, 0 when unlimited. It is the rate records arrive at the source,
// whatever it keeps up with, which the autoscaler takes as its input rate.
// Rate is called from other goroutines than the one that calls Next.
type Paced interface {
	Rate() float64
}

// Lagging is a source that reads partitions of a log and knows how far
// behind their ends it is, for metrics. Lags is called from other
// goroutines than the one that calls Next, while the source runs.
type Lagging interface {
	// Lags appends to dst the lag of each partition the source has
	// fetched from, as of its last fetch, and returns the extended slice.
	Lags(dst []PartitionLag) []PartitionLag
}

// Splitted is a source whose input comes in a fixed number of splits that
// no more subtasks can share further: Kafka partitions, a followed file. Its
// stage gains nothing from more subtasks than the splits of all of them,
// which the autoscaler uses as a bound. Splits is called from other
// goroutines than the one that calls Next, while the source runs.
type Splitted interface {
	// Splits returns how many splits the source reads now, and false
	// when its input splits any number of ways (a bounded file).
	Splits() (n int, fixed bool)
}

// PartitionLag is how many records of a partition are not yet read.
type PartitionLag struct {
	Topic     string
	Partition int32
	Records   int64
}
