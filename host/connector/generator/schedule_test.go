package generator

import (
	"context"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/connectortest"
	"github.com/floe-stream/floe/host/connector/ratelimit"
	"github.com/floe-stream/floe/host/record"
)

// TestRateScheduleOnFakeClock runs a scheduled generator on a fake clock
// and counts the records of each second: 100/s for 2 s, 1000/s for 1 s,
// then 100/s from then on. A restored source goes on at the step its
// records had reached.
func TestRateScheduleOnFakeClock(t *testing.T) {
	sched := ratelimit.Schedule{{For: 2 * time.Second, Rate: 100}, {For: time.Second, Rate: 1000}, {For: time.Second, Rate: 100}}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := connectortest.NewFakeClock(start)
	src := open(t, Config{Schedule: sched, Clock: clock}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	perSecond := secondsOf(t, src, clock, start, 5)
	want := []int{100, 100, 1000, 100, 100}
	for i := range want {
		if d := perSecond[i] - want[i]; d < -10 || d > 10 {
			t.Errorf("second %d: %d records, want %d (±10, a batch at a step's edge)", i, perSecond[i], want[i])
		}
	}

	// Restore a split of a source of parallelism 2 (half the records)
	// at record 150.
	half := open(t, Config{Schedule: sched, Clock: clock}, connector.SplitInfo{Subtask: 0, Parallelism: 2})
	sp := split{info: connector.SplitInfo{Subtask: 0, Parallelism: 2}, emitted: 150}
	if err := half.Seek([][]byte{sp.encode()}); err != nil {
		t.Fatal(err)
	}
	// The split's steps: 100 records at 100/s, 500 at 1000/s, then
	// 100/s: at 150 it is in the second step, where half the source's
	// 1000/s is 500/s.
	if got := half.(*source).scheduledRate(); got != 500 {
		t.Errorf("restored split's rate %g, want 500", got)
	}
}

// secondsOf counts the records src emits in each of the first n seconds.
func secondsOf(t *testing.T, src connector.Source, clock *connectortest.FakeClock, start time.Time, n int) []int {
	t.Helper()
	out := make([]int, n)
	var b record.Batch
	for {
		sec := int(clock.Now().Sub(start) / time.Second)
		if sec >= n {
			return out
		}
		b.Reset()
		if err := src.Next(context.Background(), &b, 10); err != nil {
			t.Fatal(err)
		}
		out[sec] += b.Len()
	}
}
