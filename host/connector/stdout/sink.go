package stdout

import (
	"fmt"
	"io"
	"os"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// DefaultBufferSize is the buffer size of a sink whose Config leaves
// BufferSize zero.
const DefaultBufferSize = 64 << 10

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
}

// sink buffers one subtask's lines and writes them to a shared Writer.
type sink struct {
	out    io.Writer
	buf    []byte
	limit  int
	closed bool
}

// NewSink returns a sink writing to cfg.Out. It fails if BufferSize is
// negative.
func NewSink(cfg Config) (connector.Sink, error) {
	if cfg.BufferSize < 0 {
		return nil, fmt.Errorf("stdout sink: buffer size %d is negative", cfg.BufferSize)
	}
	s := &sink{out: cfg.Out, limit: cfg.BufferSize}
	if s.out == nil {
		s.out = NewWriter(os.Stdout)
	}
	if s.limit == 0 {
		s.limit = DefaultBufferSize
	}
	return s, nil
}

// Write implements connector.Sink. It appends the whole batch to the buffer
// before deciding whether to write it out.
func (s *sink) Write(b *record.Batch) error {
	if s.closed {
		return connector.ErrClosed
	}
	for i := range b.Records {
		s.buf = append(s.buf, b.Records[i].Value...)
		s.buf = append(s.buf, '\n')
	}
	if len(s.buf) < s.limit {
		return nil
	}
	return s.Flush()
}

// Flush implements connector.Sink.
func (s *sink) Flush() error {
	if s.closed {
		return connector.ErrClosed
	}
	if len(s.buf) == 0 {
		return nil
	}
	_, err := s.out.Write(s.buf)
	s.buf = s.buf[:0]
	if err != nil {
		return fmt.Errorf("stdout sink: %w", err)
	}
	return nil
}

// Close implements connector.Sink. It flushes but does not close Out, which
// the sink does not own.
func (s *sink) Close() error {
	err := s.Flush()
	s.closed = true
	return err
}
