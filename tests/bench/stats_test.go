package main

import (
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
)

func TestPercentileIsNearestRank(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		d := make([]time.Duration, len(xs))
		for i, x := range xs {
			d[i] = time.Duration(x) * time.Millisecond
		}
		return d
	}
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, tc := range []struct {
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 1, 7 * time.Millisecond},
		{ms(7), 100, 7 * time.Millisecond},
		{ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{ms(1, 2, 3, 4), 51, 3 * time.Millisecond},
		{ms(1, 2, 3, 4), 100, 4 * time.Millisecond},
		{hundred, 99, 99 * time.Millisecond},
		{hundred, 99.5, 100 * time.Millisecond},
		{hundred, 0.1, 1 * time.Millisecond},
	} {
		if got := percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("percentile(%d values, %v) = %v, want %v", len(tc.sorted), tc.p, got, tc.want)
		}
	}
}

func TestRunningSpanTakesTheLastRunning(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	st := api.JobStatus{ID: "j", State: api.JobFinished, History: []api.Event{
		{Time: at(0), State: api.JobWaiting}, {Time: at(0.1), State: api.JobDeploying},
		{Time: at(0.2), State: api.JobRunning}, {Time: at(1), State: api.JobRestarting},
		{Time: at(2), State: api.JobRunning}, {Time: at(5.5), State: api.JobFinished},
	}}
	if d, err := runningSpan(st); err != nil || d != 3500*time.Millisecond {
		t.Errorf("runningSpan = %v, %v; want 3.5s", d, err)
	}
	st.History = st.History[:5]
	st.State = api.JobRunning
	if _, err := runningSpan(st); err == nil {
		t.Error("a job that has not finished has a running span")
	}
}

func TestGeneratedSpecsParse(t *testing.T) {
	for _, j := range []genJob{
		{name: "shuffle", records: 10, keys: 5, size: 100, parallelism: 2},
		{name: "count", records: 10, keys: 5, size: 100, parallelism: 2, count: true},
	} {
		job, err := jobspec.Parse(j.spec(), t.TempDir(), nil)
		if err != nil {
			t.Fatalf("%s:\n%s\n%v", j.name, j.spec(), err)
		}
		if n := len(job.Operators); n != map[bool]int{false: 1, true: 2}[j.count] {
			t.Errorf("%s: %d operators", j.name, n)
		}
	}
}

func TestSpansTaskManagers(t *testing.T) {
	st := api.JobStatus{Vertices: []api.VertexStatus{
		{Name: "gen -> by-key", Subtasks: []api.SubtaskStatus{{TaskManager: "tm-1"}, {TaskManager: "tm-2"}}},
		{Name: "out", Subtasks: []api.SubtaskStatus{{TaskManager: "tm-1"}, {TaskManager: "tm-1"}}},
	}}
	err := spansTaskManagers(st, 2)
	if err == nil || !strings.Contains(err.Error(), `"out"`) {
		t.Errorf("got %v, want an error naming stage out", err)
	}
	st.Vertices[1].Subtasks[1].TaskManager = "tm-2"
	if err := spansTaskManagers(st, 2); err != nil {
		t.Error(err)
	}
}
