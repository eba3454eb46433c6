package file

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/internal/linewriter"
	"github.com/floe-stream/floe/host/record"
)

// sink writes lines into one part file. The file only ever grows by whole
// lines, and a line reaches it at most a flush interval after Write.
type sink struct {
	path string
	f    *os.File
	w    *linewriter.Writer
}

// PartName returns the name of the part file that subtask writes, such as
// part-00000 for subtask 0.
func PartName(subtask int) string {
	return fmt.Sprintf("part-%05d", subtask)
}

// OpenSink creates the directory of cfg if it is missing, and in it creates
// or truncates the part file of split's subtask (with buckets, the part
// file in each bucket directory, as records come). It fails, naming the path,
// if either cannot be created. The sink flushes from a goroutine of its own
// every flush interval, until Close.
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
	if cfg.Buckets.Format != "" {
		return openBucketSink(cfg, split), nil
	}
	path := filepath.Join(cfg.Path, PartName(split.Subtask))
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("file sink: %w", err)
	}
	w := linewriter.New(linewriter.Config{
		Out: f, BufferSize: bufferSize(cfg.BufferSize),
		FlushInterval: flushInterval(cfg.FlushInterval), Ticks: cfg.ticks,
	})
	return &sink{path: path, f: f, w: w}, nil
}

// Write implements connector.Sink.
func (s *sink) Write(b *record.Batch) error { return s.wrap(s.w.Write(b)) }

// Flush implements connector.Sink.
func (s *sink) Flush() error { return s.wrap(s.w.Flush()) }

// Close implements connector.Sink. The file is closed even if flushing fails.
func (s *sink) Close() error {
	err := s.w.Close()
	if errors.Is(err, connector.ErrClosed) {
		return err
	}
	err = s.wrap(err)
	if cerr := s.f.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("file sink: close %s: %w", s.path, cerr))
	}
	return err
}

// wrap names the part file in a write error; ErrClosed stays as it is.
func (s *sink) wrap(err error) error {
	if err == nil || errors.Is(err, connector.ErrClosed) {
		return err
	}
	return fmt.Errorf("file sink: write %s: %w", s.path, err)
}
