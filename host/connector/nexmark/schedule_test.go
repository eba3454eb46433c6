package nexmark

import (
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/ratelimit"
)

// TestScheduledRateFollowsTheSplits checks the rate a scheduled source
// paces itself at: per split, the step its events have reached, for its
// share of the source's events.
func TestScheduledRateFollowsTheSplits(t *testing.T) {
	sched := ratelimit.Schedule{{For: time.Second, Rate: 100}, {For: time.Second, Rate: 1000}}
	src := open(t, Config{Schedule: sched, EventsPerSecond: DefaultEventsPerSecond}, connector.SplitInfo{Subtask: 0, Parallelism: 2})
	s := src.(*source)
	if got := s.scheduledRate(); got != 50 {
		t.Errorf("fresh split of 2: %g, want 50", got)
	}
	// Restored with two splits of a source of 2: one past its 50 events
	// of the first step, one not.
	a := split{info: connector.SplitInfo{Subtask: 0, Parallelism: 2}, emitted: 60, quota: -1}
	b := split{info: connector.SplitInfo{Subtask: 1, Parallelism: 2}, emitted: 10, quota: -1}
	if err := s.Seek([][]byte{a.encode(), b.encode()}); err != nil {
		t.Fatal(err)
	}
	if got := s.scheduledRate(); got != 500+50 {
		t.Errorf("restored splits: %g, want 550", got)
	}
	if _, err := NewSource(Config{Rate: 5, Schedule: sched, EventsPerSecond: 1}, connector.SplitInfo{Parallelism: 1}); err == nil {
		t.Error("a rate and a schedule: no error")
	}
}
