package file

import (
	"context"

	"github.com/floe-stream/floe/internal/connector"
	"github.com/floe-stream/floe/internal/record"
)

// idle is the source of a subtask other than 0 in follow mode: a followed
// file has a single reader, so the other subtasks emit nothing, forever.
type idle struct {
	clock  connector.Clock
	closed bool
}

// Next waits one PollInterval, or until ctx is done, and returns no records.
func (s *idle) Next(ctx context.Context, _ *record.Batch, max int) error {
	if err := connector.CheckNext(ctx, s.closed, max); err != nil {
		return err
	}
	return s.clock.Sleep(ctx, PollInterval)
}

// Position returns the position of a source that has read nothing.
func (s *idle) Position() ([]byte, error) {
	if s.closed {
		return nil, connector.ErrClosed
	}
	return encodePosition(0, 0), nil
}

// Seek checks that pos is well formed; an idle source has nothing to restore.
func (s *idle) Seek(pos []byte) error {
	if s.closed {
		return connector.ErrClosed
	}
	_, _, err := decodePosition(pos)
	return err
}

// Close implements connector.Source.
func (s *idle) Close() error {
	if s.closed {
		return connector.ErrClosed
	}
	s.closed = true
	return nil
}
