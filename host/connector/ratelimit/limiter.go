package ratelimit

import (
	"context"
	"math"
	"sync/atomic"
	"time"

	"github.com/floe-stream/floe/host/connector"
)

// MaxWait is the longest a single Take sleeps waiting for tokens.
const MaxWait = 50 * time.Millisecond

// Limiter is a token bucket granting records at a fixed rate. A nil *Limiter
// imposes no limit. A Limiter is not safe for concurrent use, but for Rate.
type Limiter struct {
	rate float64 // tokens per second
	// shown is rate's bits, for Rate from other goroutines.
	shown   atomic.Uint64
	clock   connector.Clock
	tokens  float64
	last    time.Time
	started bool
	// waited is the time Take has slept, in all.
	waited time.Duration
}

// New returns a Limiter granting rate records per second on clock, or nil
// (no limit) when rate is not positive. The bucket starts empty when Take is
// first called, so over any run the records granted never exceed rate times
// the time elapsed since then.
func New(rate float64, clock connector.Clock) *Limiter {
	if !(rate > 0) {
		return nil
	}
	l := &Limiter{rate: rate, clock: connector.OrSystem(clock)}
	l.shown.Store(math.Float64bits(rate))
	return l
}

// Rate returns the records per second l grants now, 0 for a nil Limiter
// (no limit). Unlike the other methods it may be called from any
// goroutine: metrics report it while the source runs.
func (l *Limiter) Rate() float64 {
	if l == nil {
		return 0
	}
	return math.Float64frombits(l.shown.Load())
}

// Take returns how many of want records (want > 0) may be emitted now and
// spends their tokens. If fewer than want tokens are available it first
// sleeps until want tokens have accrued, but never longer than MaxWait, and
// then grants what it has, which may be zero. The bucket is capped at want,
// so bursts are at most one batch. Take returns ctx.Err() if ctx is done
// during the sleep.
func (l *Limiter) Take(ctx context.Context, want int) (int, error) {
	if l == nil {
		return want, nil
	}
	l.refill(want)
	if l.tokens < float64(want) {
		d := min(l.timeFor(float64(want)-l.tokens), MaxWait)
		l.waited += d
		if err := l.clock.Sleep(ctx, d); err != nil {
			return 0, err
		}
		l.refill(want)
	}
	n := min(int(l.tokens), want)
	l.tokens -= float64(n)
	return n, nil
}

// refill adds the tokens accrued since the last refill, up to burst.
func (l *Limiter) refill(burst int) {
	now := l.clock.Now()
	if l.started {
		l.tokens = min(l.tokens+now.Sub(l.last).Seconds()*l.rate, float64(burst))
	}
	l.last, l.started = now, true
}

// timeFor returns how long n tokens take to accrue, at least one nanosecond
// so that a fake clock always moves forward.
func (l *Limiter) timeFor(n float64) time.Duration {
	return time.Duration(max(1, math.Ceil(n/l.rate*float64(time.Second))))
}

// Waited returns the time Take has slept, in all; 0 for a nil Limiter.
func (l *Limiter) Waited() time.Duration {
	if l == nil {
		return 0
	}
	return l.waited
}
