package file

import (
	"fmt"
	"math"
	"time"

	"github.com/floe-stream/floe/host/connector"
)

// DefaultBufferSize is the size of the read and write buffers when a config
// leaves BufferSize zero.
const DefaultBufferSize = 256 << 10

// DefaultFlushInterval is how often a sink without checkpoints flushes when
// a config leaves FlushInterval zero.
const DefaultFlushInterval = time.Second

// PollInterval is how often a source in follow mode looks for appended data.
const PollInterval = 50 * time.Millisecond

// SourceConfig configures a file source.
type SourceConfig struct {
	// Path names the file to read.
	Path string
	// Rate caps the lines per second of the whole source, across all its
	// subtasks; 0 means unlimited.
	Rate float64
	// Follow makes the source unbounded: it keeps reading lines appended to
	// the file and never ends.
	Follow bool
	// BufferSize is the size of the read buffer in bytes; 0 means
	// DefaultBufferSize. Lines longer than the buffer are still read whole.
	BufferSize int
	// Clock paces the rate limit and follow-mode polling; nil means the
	// system clock.
	Clock connector.Clock
}

// validate reports the first field of c that is out of range.
func (c SourceConfig) validate() error {
	switch {
	case c.Path == "":
		return fmt.Errorf("file source: path is empty")
	case c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return fmt.Errorf("file source %s: rate %v is not a non-negative number", c.Path, c.Rate)
	case c.BufferSize < 0:
		return fmt.Errorf("file source %s: buffer size %d is negative", c.Path, c.BufferSize)
	}
	return nil
}

// SinkConfig configures a file sink.
type SinkConfig struct {
	// Path names the directory that receives one part file per subtask. It
	// is created, with its parents, if missing.
	Path string
	// BufferSize is the size of the write buffer in bytes; 0 means
	// DefaultBufferSize. A batch is never split between writes, so one
	// write can exceed it.
	BufferSize int
	// FlushInterval is the longest a line written without checkpoints
	// waits in the buffer before it reaches the part file; 0 means
	// DefaultFlushInterval. The transactional sink ignores it: its output
	// appears when a checkpoint completes.
	FlushInterval time.Duration
	// Buckets, if its Format is set, writes each record into a
	// subdirectory named by its event time (bucket.go).
	Buckets Buckets

	// ticks, set by tests, replaces the ticker of FlushInterval.
	ticks <-chan time.Time
}

// validate reports the first field of c that is out of range.
func (c SinkConfig) validate() error {
	switch {
	case c.Path == "":
		return fmt.Errorf("file sink: path is empty")
	case c.BufferSize < 0:
		return fmt.Errorf("file sink %s: buffer size %d is negative", c.Path, c.BufferSize)
	case c.FlushInterval < 0:
		return fmt.Errorf("file sink %s: flush interval %v is negative", c.Path, c.FlushInterval)
	}
	if err := c.Buckets.validate(); err != nil {
		return fmt.Errorf("file sink %s: %w", c.Path, err)
	}
	return nil
}

// flushInterval returns d, or DefaultFlushInterval when d is zero.
func flushInterval(d time.Duration) time.Duration {
	if d == 0 {
		return DefaultFlushInterval
	}
	return d
}

// bufferSize returns n, or DefaultBufferSize when n is zero.
func bufferSize(n int) int {
	if n == 0 {
		return DefaultBufferSize
	}
	return n
}
