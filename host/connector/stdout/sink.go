package stdout

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/internal/linewriter"
	"github.com/floe-stream/floe/host/record"
)

// DefaultBufferSize is the buffer size of a sink whose Config leaves
// BufferSize zero.
const DefaultBufferSize = 64 << 10

// DefaultFlushInterval is how often a sink flushes when its Config leaves
// FlushInterval zero.
const DefaultFlushInterval = time.Second

// Config configures a stdout sink.
type Config struct {
	// Out receives the lines. All subtasks of a job must share one Out,
	// whose Write is safe for concurrent use and writes each call whole,
	// such as a Writer. Nil means a Writer over os.Stdout.
	//
	// NB: sinks that each default to their own Writer over os.Stdout still do
	// not interleave, because an *os.File serializes its Write calls and
	// writes each one whole.
	Out io.Writer
	// BufferSize is how many bytes a sink buffers before it writes to Out;
	// 0 means DefaultBufferSize. A batch is never split across writes, so
	// a single write can exceed it.
	BufferSize int
	// FlushInterval is the longest a line waits in the buffer before it is
	// written to Out, even when no more input comes; 0 means
	// DefaultFlushInterval.
	FlushInterval time.Duration

	// ticks, set by tests, replaces the ticker of FlushInterval.
	ticks <-chan time.Time
}

// sink buffers one subtask's lines and writes them to a shared Writer.
type sink struct {
	w *linewriter.Writer
}

// NewSink returns a sink writing to cfg.Out, which flushes from a goroutine
// of its own every flush interval until Close. It fails if BufferSize or
// FlushInterval is negative.
func NewSink(cfg Config) (connector.Sink, error) {
	switch {
	case cfg.BufferSize < 0:
		return nil, fmt.Errorf("stdout sink: buffer size %d is negative", cfg.BufferSize)
	case cfg.FlushInterval < 0:
		return nil, fmt.Errorf("stdout sink: flush interval %v is negative", cfg.FlushInterval)
	}
	if cfg.Out == nil {
		cfg.Out = NewWriter(os.Stdout)
	}
	if cfg.BufferSize == 0 {
		cfg.BufferSize = DefaultBufferSize
	}
	if cfg.FlushInterval == 0 {
		cfg.FlushInterval = DefaultFlushInterval
	}
	return &sink{w: linewriter.New(linewriter.Config{
		Out: cfg.Out, BufferSize: cfg.BufferSize, FlushInterval: cfg.FlushInterval, Ticks: cfg.ticks,
	})}, nil
}

// Write implements connector.Sink. It appends the whole batch to the buffer
// before deciding whether to write it out.
func (s *sink) Write(b *record.Batch) error { return wrap(s.w.Write(b)) }

// Flush implements connector.Sink.
func (s *sink) Flush() error { return wrap(s.w.Flush()) }

// Close implements connector.Sink. It flushes but does not close Out, which
// the sink does not own.
func (s *sink) Close() error { return wrap(s.w.Close()) }

// wrap names the sink in a write error; ErrClosed stays as it is.
func wrap(err error) error {
	if err == nil || errors.Is(err, connector.ErrClosed) {
		return err
	}
	return fmt.Errorf("stdout sink: %w", err)
}
