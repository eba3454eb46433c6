package file

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/ratelimit"
	"github.com/floe-stream/floe/host/record"
)

// source reads the lines of the splits it holds, one split after another:
// its own share of the file when fresh, or the splits that Seek gave it.
type source struct {
	path   string
	f      *os.File
	lines  lineReader
	splits []split
	cur    int  // index of the split being read; len(splits) once all are done
	ready  bool // whether the next read starts at splits[cur].offset, aligned
	follow bool // whether the source is unbounded, and its splits follow the file
	closed bool
	limit  *ratelimit.Limiter
	clock  connector.Clock
	// bytesRead and bytesTotal are BytesRead's answer, updated once per batch and
	// on Seek.
	bytesRead, bytesTotal atomic.Int64
	// nsplits is len(splits), for Splits from other goroutines.
	nsplits atomic.Int32
}

// OpenSource opens the file of cfg and returns the source of info's share of
// its lines. It fails, naming the path, if the file cannot be opened or is a
// directory. In follow mode, subtasks other than 0 start with no split, and
// idle unless Seek gives them one; they still open the file.
func OpenSource(cfg SourceConfig, info connector.SplitInfo) (connector.Source, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := info.Validate(); err != nil {
		return nil, fmt.Errorf("file source %s: %w", cfg.Path, err)
	}
	f, size, err := openFile(cfg.Path)
	if err != nil {
		return nil, err
	}
	clock := connector.OrSystem(cfg.Clock)
	s := &source{path: cfg.Path, f: f, follow: cfg.Follow, clock: clock, splits: []split{}}
	s.lines.r = bufio.NewReaderSize(f, bufferSize(cfg.BufferSize))
	if cfg.Follow {
		s.limit = ratelimit.New(cfg.Rate, clock)
		if info.Subtask == 0 {
			s.splits = append(s.splits, split{start: 0, end: unbounded})
		}
		s.nsplits.Store(int32(len(s.splits)))
		return s, nil
	}
	start, end := splitRange(size, info)
	s.splits = append(s.splits, split{start: start, end: end, offset: start})
	s.limit = ratelimit.New(cfg.Rate/float64(info.Parallelism), clock)
	s.progressed()
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
	defer s.progressed()
	sp, err := s.current()
	switch {
	case err != nil:
		return err
	case sp == nil && s.follow:
		return s.clock.Sleep(ctx, PollInterval)
	case sp == nil:
		return io.EOF
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

// nextBounded reads up to n lines of the splits into b. Once no split has a
// line left it returns io.EOF, with b empty.
func (s *source) nextBounded(b *record.Batch, n int) error {
	count, err := s.read(b, n)
	if err == nil && count == 0 {
		return io.EOF
	}
	return err
}

// nextFollowing reads up to n complete lines into b; if none is there yet it
// waits one PollInterval and tries once more, so it returns well within the
// 100 ms that an unbounded source may block.
func (s *source) nextFollowing(ctx context.Context, b *record.Batch, n int) error {
	count, err := s.read(b, n)
	if err != nil || count > 0 {
		return err
	}
	if err := s.clock.Sleep(ctx, PollInterval); err != nil {
		return err
	}
	_, err = s.read(b, n)
	return err
}

// read appends up to n lines to b, from the current split and, once it is
// exhausted, from the next ones. It returns how many it appended: fewer than
// n when no split has a line left or, in follow mode, when no complete line
// is there yet. In follow mode a last line without its newline is not
// emitted but left to be read again once it is complete.
func (s *source) read(b *record.Batch, n int) (int, error) {
	count := 0
	for count < n {
		sp, err := s.current()
		if sp == nil || err != nil {
			return count, err
		}
		line, rerr := s.lines.next()
		if rerr != nil && rerr != io.EOF {
			return count, fmt.Errorf("file source: read %s: %w", s.path, rerr)
		}
		if rerr == io.EOF && s.follow {
			return count, s.holdBack(sp, len(line))
		}
		if rerr == io.EOF && len(line) == 0 {
			s.finish()
			continue
		}
		sp.offset += int64(len(line))
		b.Append(nil, trimEOL(line), record.NoTimestamp)
		count++
		if rerr == io.EOF {
			s.finish()
		}
	}
	return count, nil
}

// current returns the split being read, with the next read starting at its
// offset, after moving past the exhausted splits; nil when none is left.
func (s *source) current() (*split, error) {
	for s.cur < len(s.splits) {
		sp := &s.splits[s.cur]
		switch {
		case !s.follow && sp.done():
			s.finish()
		case !s.ready:
			if err := s.position(sp); err != nil {
				return nil, err
			}
			s.ready = true // NB: aligning may have moved past the end.
		default:
			return sp, nil
		}
	}
	return nil, nil
}

// finish moves on to the next split.
func (s *source) finish() {
	s.cur++
	s.ready = false
}

// position makes the next read start at sp's offset. It first aligns a split
// whose offset may lie within a line, by skipping the rest of the line that
// straddles its start, so that a line beginning exactly at start is kept.
func (s *source) position(sp *split) error {
	if sp.offset > sp.start || sp.start == 0 {
		return s.reposition(sp.offset)
	}
	if err := s.reposition(sp.start - 1); err != nil {
		return err
	}
	line, err := s.lines.next()
	if err != nil && err != io.EOF {
		return fmt.Errorf("file source: read %s: %w", s.path, err)
	}
	// NB: a file that shrank may end before start; the split is then empty.
	sp.offset = max(sp.start, sp.start-1+int64(len(line)))
	return nil
}

// holdBack undoes the reading of a partial last line of partial bytes, so the
// next read starts again at its beginning.
func (s *source) holdBack(sp *split, partial int) error {
	if partial == 0 {
		return nil
	}
	return s.reposition(sp.offset)
}

// reposition makes the next read start at offset, dropping buffered data.
func (s *source) reposition(offset int64) error {
	if _, err := s.f.Seek(offset, io.SeekStart); err != nil {
		return fmt.Errorf("file source: seek %s to %d: %w", s.path, offset, err)
	}
	s.lines.r.Reset(s.f)
	return nil
}

// Position implements connector.Source: one state per split, exhausted ones
// included. It does no I/O: a split not yet aligned is recorded as such.
func (s *source) Position() ([][]byte, error) {
	if s.closed {
		return nil, connector.ErrClosed
	}
	states := make([][]byte, len(s.splits))
	for i, sp := range s.splits {
		states[i] = sp.encode()
	}
	return states, nil
}

// Seek implements connector.Source. A split of follow mode is refused by a
// bounded source, and a bounded split by a source in follow mode.
func (s *source) Seek(states [][]byte) error {
	if s.closed {
		return connector.ErrClosed
	}
	splits := make([]split, len(states))
	for i, st := range states {
		sp, err := decodeSplit(st)
		if err != nil {
			return err
		}
		if sp.follows() != s.follow {
			return fmt.Errorf("file source %s: %w: split [%d, %d) does not match follow mode %v", s.path, connector.ErrBadPosition, sp.start, sp.end, s.follow)
		}
		splits[i] = sp
	}
	s.splits, s.cur, s.ready = splits, 0, false
	s.progressed()
	return nil
}

// Splits implements connector.Splitted: in follow mode the splits the
// source holds (one, in all its stage); a bounded file splits by bytes
// among any number of subtasks.
func (s *source) Splits() (int, bool) { return int(s.nsplits.Load()), s.follow }

// BytesRead implements connector.Progress: the bytes of the source's
// splits before their offsets, and their total size; in follow mode, the
// bytes read and -1.
func (s *source) BytesRead() (read, total int64) { return s.bytesRead.Load(), s.bytesTotal.Load() }

// progressed updates BytesRead's answer from the splits.
func (s *source) progressed() {
	s.nsplits.Store(int32(len(s.splits)))
	var read, total int64
	for i := range s.splits {
		sp := &s.splits[i]
		if s.follow {
			read += max(0, sp.offset-sp.start)
			continue
		}
		// NB: the last line of a split may run past its end.
		read += max(0, min(sp.offset, sp.end)-sp.start)
		total += sp.end - sp.start
	}
	if s.follow {
		total = -1
	}
	s.bytesRead.Store(read)
	s.bytesTotal.Store(total)
}

// Close implements connector.Source.
// Throttled implements connector.Throttled: the time spent waiting on the
// rate limit, which the task counts as idle rather than busy, as for
// a file source read at a `rate` (the autoscaler reads busy time as load).
func (s *source) Throttled() time.Duration { return s.limit.Waited() }

func (s *source) Close() error {
	if s.closed {
		return connector.ErrClosed
	}
	s.closed = true
	return closeFile(s.f, s.path)
}
