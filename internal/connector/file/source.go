package file

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/floe-stream/floe/internal/connector"
	"github.com/floe-stream/floe/internal/connector/ratelimit"
	"github.com/floe-stream/floe/internal/record"
)

// source reads the lines of one split of a file, or follows a whole file.
type source struct {
	path    string
	f       *os.File
	lines   lineReader
	pos     int64 // offset of the first line not yet emitted
	end     int64 // lines starting at or after end belong to a later split
	aligned bool  // whether pos is known to be the start of a line
	follow  bool
	done    bool
	closed  bool
	limit   *ratelimit.Limiter
	clock   connector.Clock
}

// OpenSource opens the file of cfg and returns the source of split's share of
// its lines. It fails, naming the path, if the file cannot be opened or is a
// directory. In follow mode, subtasks other than 0 get a source that only
// idles; they still check that the file exists.
func OpenSource(cfg SourceConfig, split connector.SplitInfo) (connector.Source, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := split.Validate(); err != nil {
		return nil, fmt.Errorf("file source %s: %w", cfg.Path, err)
	}
	f, size, err := openFile(cfg.Path)
	if err != nil {
		return nil, err
	}
	clock := connector.OrSystem(cfg.Clock)
	if cfg.Follow && split.Subtask != 0 {
		return &idle{clock: clock}, closeFile(f, cfg.Path)
	}
	s := &source{path: cfg.Path, f: f, follow: cfg.Follow, clock: clock}
	s.lines.r = bufio.NewReaderSize(f, bufferSize(cfg.BufferSize))
	if cfg.Follow {
		s.end, s.aligned, s.limit = unbounded, true, ratelimit.New(cfg.Rate, clock)
		return s, nil
	}
	s.pos, s.end = splitRange(size, split)
	s.aligned = s.pos == 0
	s.limit = ratelimit.New(cfg.Rate/float64(split.Parallelism), clock)
	return s, nil
}

// openFile opens the regular file at path and returns its current size.
func openFile(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("file source: %w", err)
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = fmt.Errorf("file source: %w", err)
	case fi.IsDir():
		err = fmt.Errorf("file source: %s is a directory, not a file", path)
	default:
		return f, fi.Size(), nil
	}
	f.Close()
	return nil, 0, err
}

// closeFile closes f and wraps a failure with its path.
func closeFile(f *os.File, path string) error {
	if err := f.Close(); err != nil {
		return fmt.Errorf("file source: close %s: %w", path, err)
	}
	return nil
}

// Next implements connector.Source.
func (s *source) Next(ctx context.Context, b *record.Batch, max int) error {
	if err := connector.CheckNext(ctx, s.closed, max); err != nil {
		return err
	}
	if s.done {
		return io.EOF
	}
	if err := s.align(); err != nil {
		return err
	}
	n, err := s.limit.Take(ctx, max)
	if err != nil || n == 0 {
		return err
	}
	if s.follow {
		return s.nextFollowing(ctx, b, n)
	}
	return s.nextBounded(b, n)
}

// nextBounded reads up to n lines of the split into b, and notes when the
// split is exhausted so that the following call returns io.EOF.
func (s *source) nextBounded(b *record.Batch, n int) error {
	count, atEnd, err := s.read(b, n)
	if err != nil {
		return err
	}
	s.done = atEnd
	if s.done && count == 0 {
		return io.EOF
	}
	return nil
}

// nextFollowing reads up to n complete lines into b; if none is there yet it
// waits one PollInterval and tries once more, so it returns well within the
// 100 ms that an unbounded source may block.
func (s *source) nextFollowing(ctx context.Context, b *record.Batch, n int) error {
	count, _, err := s.read(b, n)
	if err != nil || count > 0 {
		return err
	}
	if err := s.clock.Sleep(ctx, PollInterval); err != nil {
		return err
	}
	_, _, err = s.read(b, n)
	return err
}

// read appends up to n lines to b. It returns how many it appended and
// whether it stopped because no line is left to read: the split's range or
// the file's data has ended. In follow mode a last line without its newline
// is not emitted but left to be read again once it is complete.
func (s *source) read(b *record.Batch, n int) (count int, atEnd bool, err error) {
	for ; count < n; count++ {
		if s.pos >= s.end {
			return count, true, nil
		}
		line, err := s.lines.next()
		if err != nil && err != io.EOF {
			return count, true, fmt.Errorf("file source: read %s: %w", s.path, err)
		}
		if err == io.EOF && (s.follow || len(line) == 0) {
			return count, true, s.holdBack(len(line))
		}
		s.pos += int64(len(line))
		b.Append(nil, trimEOL(line), record.NoTimestamp)
		if err == io.EOF {
			return count + 1, true, nil
		}
	}
	return count, false, nil
}

// holdBack undoes the reading of a partial last line of partial bytes, so the
// next read starts again at its beginning.
func (s *source) holdBack(partial int) error {
	if partial == 0 {
		return nil
	}
	return s.reposition(s.pos)
}

// align moves pos, on first use, from the start of the split's range to the
// first line that starts in the range, by skipping the rest of the line that
// straddles the range's start. An empty range needs no alignment.
func (s *source) align() error {
	if s.aligned || s.pos >= s.end {
		s.aligned = true
		return nil
	}
	if err := s.reposition(s.pos - 1); err != nil {
		return err
	}
	line, err := s.lines.next()
	if err != nil && err != io.EOF {
		return fmt.Errorf("file source: read %s: %w", s.path, err)
	}
	s.pos += int64(len(line)) - 1
	s.aligned = true
	return nil
}

// reposition makes the next read start at offset, dropping buffered data.
func (s *source) reposition(offset int64) error {
	if _, err := s.f.Seek(offset, io.SeekStart); err != nil {
		return fmt.Errorf("file source: seek %s to %d: %w", s.path, offset, err)
	}
	s.lines.r.Reset(s.f)
	return nil
}

// Position implements connector.Source. Before the first Next it aligns the
// split, so that the position it returns is always the start of a line.
func (s *source) Position() ([]byte, error) {
	if s.closed {
		return nil, connector.ErrClosed
	}
	if err := s.align(); err != nil {
		return nil, err
	}
	return encodePosition(s.pos, s.end), nil
}

// Seek implements connector.Source.
func (s *source) Seek(pos []byte) error {
	if s.closed {
		return connector.ErrClosed
	}
	offset, end, err := decodePosition(pos)
	if err != nil {
		return err
	}
	if err := s.reposition(offset); err != nil {
		return err
	}
	s.pos, s.end, s.aligned, s.done = offset, end, true, false
	return nil
}

// Close implements connector.Source.
func (s *source) Close() error {
	if s.closed {
		return connector.ErrClosed
	}
	s.closed = true
	return closeFile(s.f, s.path)
}
