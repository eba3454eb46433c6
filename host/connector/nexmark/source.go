package nexmark

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/ratelimit"
	"github.com/floe-stream/floe/host/record"
)

// idleWait is how long Next of an unbounded source without a split waits
// before it returns an empty batch.
const idleWait = 50 * time.Millisecond

// source emits the events of the splits it holds, merged in increasing
// event number: its own share of the stream when fresh, or the splits that
// Seek gave it.
type source struct {
	cfg    Config
	gen    Generator
	splits []split
	buf    []byte
	limit  *ratelimit.Limiter
	clock  connector.Clock
	closed bool
}

// NewSource returns the source of info's share of the stream cfg describes:
// the events whose numbers are congruent to info.Subtask modulo
// info.Parallelism.
func NewSource(cfg Config, info connector.SplitInfo) (connector.Source, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := info.Validate(); err != nil {
		return nil, fmt.Errorf("nexmark: %w", err)
	}
	clock := connector.OrSystem(cfg.Clock)
	rate := cfg.Rate
	if len(cfg.Schedule) > 0 {
		rate = cfg.Schedule[0].Rate
	}
	return &source{
		cfg:    cfg,
		gen:    cfg.generator(),
		splits: []split{newSplit(cfg.Count, info, 0)},
		limit:  ratelimit.New(rate/float64(info.Parallelism), clock),
		clock:  clock,
	}, nil
}

// Next implements connector.Source. Each record's value is an event's CSV
// line and its timestamp the event's time. Of the splits it holds, Next
// always takes the event with the lowest number next, so its records come
// in event-time order. A source of one kind of event (Config.Stream) takes
// event numbers and emits those of its kind, so a batch may hold fewer
// records than the numbers it took, or none. At a rate, it takes up to max
// numbers: the rate caps the numbers taken, so sources of the three kinds
// at the same rate keep the pace, and the proportions, of one mixed source.
// Unpaced (rate 0), it takes numbers until the batch is at least half
// full, so that a batch of auctions or persons is not a few dozen records.
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
	fill := s.cfg.Stream != 0 && s.cfg.Rate == 0 && len(s.cfg.Schedule) == 0
	for {
		var err error
		if n, err = s.limit.Take(ctx, n); err != nil {
			return err
		}
		s.take(b, n)
		// NB: each round takes no more numbers than the batch has room
		// for records, so it never holds more than max.
		if !fill || b.Len() >= max/2 {
			return nil
		}
		if n = s.remaining(max - b.Len()); n == 0 {
			return nil
		}
	}
}

// take takes the next n event numbers of the splits and appends the
// events of the source's kind to b.
func (s *source) take(b *record.Batch, n int) {
	for range n {
		sp := &s.splits[s.lowest()]
		if n := sp.next(); s.cfg.Stream == 0 || Kind(n) == s.cfg.Stream {
			var ts int64
			s.buf, ts = s.gen.Append(s.buf[:0], n)
			b.Append(nil, s.buf, ts)
		}
		sp.emitted++
	}
}

// remaining returns how many events, up to max, the splits have left.
func (s *source) remaining(max int) int {
	n := 0
	for i := range s.splits {
		n += s.splits[i].remaining(max - n)
	}
	return n
}

// lowest returns the index of the unfinished split whose next event number
// is lowest. The caller knows that one is unfinished.
func (s *source) lowest() int {
	best := -1
	for i := range s.splits {
		sp := &s.splits[i]
		if !sp.done() && (best < 0 || sp.next() < s.splits[best].next()) {
			best = i
		}
	}
	if best < 0 {
		panic("nexmark: no split has events left")
	}
	return best
}

// Position implements connector.Source: one state per split, exhausted ones
// included.
func (s *source) Position() ([][]byte, error) {
	if s.closed {
		return nil, connector.ErrClosed
	}
	states := make([][]byte, len(s.splits))
	for i := range s.splits {
		states[i] = s.splits[i].encode()
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
		sp, err := decodeSplit(s.cfg.Count, st)
		if err != nil {
			return err
		}
		splits[i] = sp
	}
	s.splits = splits
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

// scheduledRate is the rate of the schedule's steps the splits are at: each
// split carries 1/parallelism of the events it was made for.
func (s *source) scheduledRate() float64 {
	rate := 0.0
	for _, sp := range s.splits {
		share := 1 / float64(sp.info.Parallelism)
		rate += s.cfg.Schedule.RateAt(sp.emitted, share) * share
	}
	return rate
}

// Throttled implements connector.Throttled: the time spent waiting on the
// rate limit.
func (s *source) Throttled() time.Duration { return s.limit.Waited() }

// Rate implements connector.Paced: the rate the limit (or the schedule's
// step) allows this subtask now, 0 when unlimited.
func (s *source) Rate() float64 { return s.limit.Rate() }
