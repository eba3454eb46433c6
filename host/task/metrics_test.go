package task

import (
	"testing"
	"time"
)

// TestStopwatchCountsWaitsInProgress checks that idle and blocked time
// include a wait that has not ended, so busy time (elapsed minus both)
// does not run on while a task waits.
func TestStopwatchCountsWaitsInProgress(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	var m Metrics
	if e, i, b := m.Stopwatch(at(5)); e != 0 || i != 0 || b != 0 {
		t.Fatalf("before the start: %v %v %v, want zeros", e, i, b)
	}
	m.StartNanos.Store(t0.UnixNano())
	start := m.waitBegins(at(100))
	for _, c := range []struct {
		at                     int
		elapsed, idle, blocked time.Duration
	}{
		{100, 100 * time.Millisecond, 0, 0},
		{250, 250 * time.Millisecond, 150 * time.Millisecond, 0},
	} {
		e, i, b := m.Stopwatch(at(c.at))
		if e != c.elapsed || i != c.idle || b != c.blocked {
			t.Errorf("at %d ms: elapsed %v idle %v blocked %v, want %v %v %v", c.at, e, i, b, c.elapsed, c.idle, c.blocked)
		}
	}
	m.waitEnds(start, at(300))
	m.BlockedSince.Store(at(400).UnixNano())
	e, i, b := m.Stopwatch(at(450))
	if e != 450*time.Millisecond || i != 200*time.Millisecond || b != 50*time.Millisecond {
		t.Errorf("at 450 ms: elapsed %v idle %v blocked %v, want 450ms 200ms 50ms", e, i, b)
	}
}
