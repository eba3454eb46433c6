package file

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// sink writes lines into one part file.
type sink struct {
	path   string
	f      *os.File
	w      *bufio.Writer
	closed bool
}

// PartName returns the name of the part file that subtask writes, such as
// part-00000 for subtask 0.
func PartName(subtask int) string {
	return fmt.Sprintf("part-%05d", subtask)
}

// OpenSink creates the directory of cfg if it is missing, and in it creates
// or truncates the part file of split's subtask. It fails, naming the path,
// if either cannot be created.
func OpenSink(cfg SinkConfig, split connector.SplitInfo) (connector.Sink, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := split.Validate(); err != nil {
		return nil, fmt.Errorf("file sink %s: %w", cfg.Path, err)
	}
	if err := os.MkdirAll(cfg.Path, 0o755); err != nil {
		return nil, fmt.Errorf("file sink: create directory %s: %w", cfg.Path, err)
	}
	path := filepath.Join(cfg.Path, PartName(split.Subtask))
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("file sink: %w", err)
	}
	return &sink{path: path, f: f, w: bufio.NewWriterSize(f, bufferSize(cfg.BufferSize))}, nil
}

// Write implements connector.Sink.
func (s *sink) Write(b *record.Batch) error {
	if s.closed {
		return connector.ErrClosed
	}
	for i := range b.Records {
		// NB: a bufio.Writer keeps its first error and returns it from every
		// later call, so checking the last call of a line is enough.
		s.w.Write(b.Records[i].Value)
		if err := s.w.WriteByte('\n'); err != nil {
			return fmt.Errorf("file sink: write %s: %w", s.path, err)
		}
	}
	return nil
}

// Flush implements connector.Sink.
func (s *sink) Flush() error {
	if s.closed {
		return connector.ErrClosed
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("file sink: write %s: %w", s.path, err)
	}
	return nil
}

// Close implements connector.Sink. The file is closed even if flushing fails.
func (s *sink) Close() error {
	err := s.Flush()
	if errors.Is(err, connector.ErrClosed) {
		return err
	}
	s.closed = true
	if cerr := s.f.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("file sink: close %s: %w", s.path, cerr))
	}
	return err
}
