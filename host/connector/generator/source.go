package generator

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/ratelimit"
	"github.com/floe-stream/floe/host/record"
)

// idleWait is how long Next of an unbounded generator without a split waits
// before it returns an empty batch.
const idleWait = 50 * time.Millisecond

// source emits the records of the splits it holds: its own share of the
// stream when fresh, or the splits that Seek gave it.
type source struct {
	cfg    Config
	splits []split
	next   int // index of the split the next batch starts with
	// nsplits is len(splits), for Splits from other goroutines.
	nsplits atomic.Int32
	buf     []byte
	limit   *ratelimit.Limiter
	clock   connector.Clock
	closed  bool
}

// NewSource returns the source of info's share of the stream cfg describes.
func NewSource(cfg Config, info connector.SplitInfo) (connector.Source, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := info.Validate(); err != nil {
		return nil, fmt.Errorf("generator: %w", err)
	}
	clock := connector.OrSystem(cfg.Clock)
	rate := cfg.Rate
	if len(cfg.Schedule) > 0 {
		rate = cfg.Schedule[0].Rate
	}
	s := &source{
		cfg:    cfg,
		splits: []split{newSplit(cfg, info, 0)},
		limit:  ratelimit.New(rate/float64(info.Parallelism), clock),
		clock:  clock,
	}
	s.nsplits.Store(1)
	return s, nil
}

// Next implements connector.Source. It takes records from one split after
// another in turn, moving to the next split at each call, so that the splits
// of an unbounded generator all advance.
func (s *source) Next(ctx context.Context, b *record.Batch, max int) error {
	if err := connector.CheckNext(ctx, s.closed, max); err != nil {
		return err
	}
	n := s.remaining(max)
	switch {
	case n == 0 && s.cfg.Count == 0:
		return s.clock.Sleep(ctx, idleWait)
	case n == 0:
		return io.EOF
	}
	if len(s.cfg.Schedule) > 0 {
		s.limit.SetRate(s.scheduledRate())
	}
	n, err := s.limit.Take(ctx, n)
	if err != nil {
		return err
	}
	for n > 0 {
		i := s.unfinished()
		sp := &s.splits[i]
		k := sp.remaining(n)
		for range k {
			s.buf = sp.value(s.buf, sp.emitted)
			b.Append(nil, s.buf, record.NoTimestamp)
			sp.emitted++
		}
		n -= k
		s.next = (i + 1) % len(s.splits)
	}
	return nil
}

// scheduledRate is the rate of the schedule's steps the splits are at: each
// split carries 1/parallelism of the records it was made for.
func (s *source) scheduledRate() float64 {
	rate := 0.0
	for _, sp := range s.splits {
		share := 1 / float64(sp.info.Parallelism)
		rate += s.cfg.Schedule.RateAt(sp.emitted, share) * share
	}
	return rate
}

// remaining returns how many records, up to max, the splits have left.
func (s *source) remaining(max int) int {
	n := 0
	for i := range s.splits {
		n += s.splits[i].remaining(max - n)
	}
	return n
}

// unfinished returns the index of the first split from s.next on, cyclically,
// that has records left. The caller knows that one has.
func (s *source) unfinished() int {
	for j := range s.splits {
		i := (s.next + j) % len(s.splits)
		if s.splits[i].remaining(1) > 0 {
			return i
		}
	}
	panic("generator: no split has records left")
}

// Position implements connector.Source: one state per split, exhausted ones
// included.
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

// Seek implements connector.Source.
func (s *source) Seek(states [][]byte) error {
	if s.closed {
		return connector.ErrClosed
	}
	splits := make([]split, len(states))
	for i, st := range states {
		sp, err := decodeSplit(s.cfg, st)
		if err != nil {
			return err
		}
		splits[i] = sp
	}
	s.splits, s.next = splits, 0
	s.nsplits.Store(int32(len(splits)))
	return nil
}

// Splits implements connector.Splitted. A generator's stream is cut into
// as many splits as the job's first parallelism had subtasks, and a
// rescale moves them whole (Position, Seek), so a stage gains nothing from
// more subtasks than that.
func (s *source) Splits() (int, bool) { return int(s.nsplits.Load()), true }

// Close implements connector.Source.
func (s *source) Close() error {
	if s.closed {
		return connector.ErrClosed
	}
	s.closed = true
	return nil
}

// Throttled implements connector.Throttled: the time spent waiting on the
// rate limit.
func (s *source) Throttled() time.Duration { return s.limit.Waited() }

// Rate implements connector.Paced: the rate the limit (or the schedule's
// step) allows this subtask now, 0 when unlimited.
func (s *source) Rate() float64 { return s.limit.Rate() }
