package ratelimit

import (
	"math"
	"time"
)

// Step is one step of a rate schedule: Rate records per second of the whole
// source for For.
type Step struct {
	For  time.Duration
	Rate float64
}

// Schedule is a rate that changes in steps (docs/jobs.md, a generator's
// rate: [{for: 30s, rate: 20000}, ...]). It is paced by records, not by the
// clock: step i spans For × Rate of the source's records, and after the
// last step its rate holds. So a source restored from a checkpoint, which
// knows how many records it emitted, goes on at the step it was at, and a
// source slowed down by back-pressure stays in a step until it has emitted
// the step's records.
type Schedule []Step

// RateAt returns the rate of the step that record n (from 0) of a stream
// falls in, where the stream carries share (in (0, 1]) of the source's
// records, or 0 for an empty schedule.
func (s Schedule) RateAt(n int64, share float64) float64 {
	if len(s) == 0 {
		return 0
	}
	start := 0.0
	for _, st := range s {
		end := start + st.For.Seconds()*st.Rate*share
		if float64(n) < end {
			return st.Rate
		}
		start = end
	}
	return s[len(s)-1].Rate
}

// SetRate changes the rate of l from now on; the tokens accrued so far
// stay. A nil Limiter stays unlimited, and a rate that is not positive is
// ignored.
func (l *Limiter) SetRate(rate float64) {
	if l == nil || !(rate > 0) || rate == l.rate {
		return
	}
	if l.started {
		l.refill(int(max(l.tokens, 1)))
	}
	l.rate = rate
	l.shown.Store(math.Float64bits(rate))
}
