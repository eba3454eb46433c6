package generator

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/floe-stream/floe/internal/connector"
	"github.com/floe-stream/floe/internal/connector/ratelimit"
	"github.com/floe-stream/floe/internal/record"
)

// source emits one subtask's share of a generated stream.
type source struct {
	value   valuer
	quota   int64 // records this subtask emits in all; -1 when unbounded
	emitted int64
	buf     []byte
	limit   *ratelimit.Limiter
	closed  bool
}

// NewSource returns the source of split's share of the stream cfg describes.
func NewSource(cfg Config, split connector.SplitInfo) (connector.Source, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := split.Validate(); err != nil {
		return nil, fmt.Errorf("generator: %w", err)
	}
	s := &source{
		value: sequence(split),
		quota: quota(cfg.Count, split),
		limit: ratelimit.New(cfg.Rate/float64(split.Parallelism), cfg.Clock),
	}
	if cfg.Kind == KindRandom {
		s.value = random(cfg, split)
	}
	return s, nil
}

// quota returns how many of count records split emits, or -1 when count is 0
// (unbounded). The first count%n subtasks emit one record more than the rest.
func quota(count int64, split connector.SplitInfo) int64 {
	if count == 0 {
		return -1
	}
	n, i := int64(split.Parallelism), int64(split.Subtask)
	q := count / n
	if i < count%n {
		q++
	}
	return q
}

// Next implements connector.Source.
func (s *source) Next(ctx context.Context, b *record.Batch, max int) error {
	if err := connector.CheckNext(ctx, s.closed, max); err != nil {
		return err
	}
	n := s.remaining(max)
	if n == 0 {
		return io.EOF
	}
	n, err := s.limit.Take(ctx, n)
	if err != nil {
		return err
	}
	for range n {
		s.buf = s.value(s.buf, s.emitted)
		b.Append(nil, s.buf, record.NoTimestamp)
		s.emitted++
	}
	return nil
}

// remaining returns how many records, up to max, the subtask has left.
func (s *source) remaining(max int) int {
	if s.quota < 0 {
		return max
	}
	return int(min(int64(max), s.quota-s.emitted))
}

// positionLen is the length of an encoded position: the number of records
// emitted, as a big-endian 64-bit integer.
const positionLen = 8

// Position implements connector.Source.
func (s *source) Position() ([]byte, error) {
	if s.closed {
		return nil, connector.ErrClosed
	}
	return binary.BigEndian.AppendUint64(nil, uint64(s.emitted)), nil
}

// Seek implements connector.Source.
func (s *source) Seek(pos []byte) error {
	if s.closed {
		return connector.ErrClosed
	}
	if len(pos) != positionLen {
		return fmt.Errorf("generator: %w: want %d bytes, got %d", connector.ErrBadPosition, positionLen, len(pos))
	}
	k := int64(binary.BigEndian.Uint64(pos))
	if k < 0 || (s.quota >= 0 && k > s.quota) {
		return fmt.Errorf("generator: %w: %d records emitted, quota %d", connector.ErrBadPosition, k, s.quota)
	}
	s.emitted = k
	return nil
}

// Close implements connector.Source.
func (s *source) Close() error {
	if s.closed {
		return connector.ErrClosed
	}
	s.closed = true
	return nil
}
