package main

import (
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
)

func TestAutoscaleRowSpecsParse(t *testing.T) {
	for name, c := range map[string]struct {
		spec   []byte
		params map[string]string
	}{
		"autoscale-step":       {autoscaleStepSpec(), map[string]string{"output": t.TempDir()}},
		"rescale-one-operator": {rescaleOneSpec(1000), nil},
	} {
		spec := c.spec
		job, err := jobspec.Parse(spec, t.TempDir(), c.params)
		if err != nil {
			t.Fatalf("%s:\n%s\n%v", name, spec, err)
		}
		if job.Checkpoints == nil {
			t.Errorf("%s: no checkpoints", name)
		}
	}
}

func TestAllRescalesPairsEachRescalingWithItsEnd(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	history := []api.Event{
		{Time: at(0), State: api.JobRunning, Message: "attempt 1 running"},
		{Time: at(10), State: api.JobWaiting, Message: "rescaling from 1/1 to 1/2 from checkpoint 3"},
		{Time: at(11), State: api.JobDeploying},
		{Time: at(900), State: api.JobRunning, Message: "rescaled to 1/2: 889ms downtime (1.2s since the request)"},
		{Time: at(5000), State: api.JobWaiting, Message: "rescaling from 1/2 to 1/1 from checkpoint 9"},
		{Time: at(5001), State: api.JobDeploying},
		{Time: at(5600), State: api.JobRunning, Message: "rescaled to 1/1: 590ms downtime (700ms since the request)"},
		{Time: at(7000), State: api.JobWaiting, Message: "rescaling from 1/1 to 1/2 from checkpoint 12"},
	}
	got := allRescales(history)
	want := []stepRescale{
		{stopped: at(10), done: at(900), down: 889 * time.Millisecond, to: "1/2"},
		{stopped: at(5000), done: at(5600), down: 590 * time.Millisecond, to: "1/1"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rescale %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestLongestGapCountsTheWindowsEdges(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	w := &outputWatch{grew: []time.Time{at(0), at(100), at(200), at(900), at(1000), at(5000)}}
	if g := w.longestGap(at(50), at(1100)); g != 700*time.Millisecond {
		t.Errorf("gap %s, want 700ms (200 -> 900)", g)
	}
	// No growth after 1000 until the window ends at 2500.
	if g := w.longestGap(at(50), at(2500)); g != 1500*time.Millisecond {
		t.Errorf("gap %s, want 1.5s (1000 -> the window's end)", g)
	}
}

func TestSustainedAfterWantsASecondWithinTenPercent(t *testing.T) {
	r := &stepRun{}
	rates := []float64{0, 0, 50, 95, 100, 40, 100, 105, 98, 100, 100, 100}
	for i, x := range rates {
		r.series = append(r.series, stepPoint{T: float64(i) * stepSample.Seconds(), SinkRate: x})
	}
	// The run of five samples within 10% of 100 starts at 1.5 s (index 6).
	if got := r.sustainedAfter(0.5, 90, 110); got != 1.0 {
		t.Errorf("sustained after %.2fs, want 1.0s", got)
	}
	if got := r.sustainedAfter(0, 900, 1100); got != -1 {
		t.Errorf("sustained at 1000/s after %.2fs, want never (-1)", got)
	}
}

func TestTrackStagesTimesEachStageOutOfRunning(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	st := func(states ...string) api.JobStatus {
		var js api.JobStatus
		for _, s := range states {
			js.Vertices = append(js.Vertices, api.VertexStatus{Subtasks: []api.SubtaskStatus{{State: "RUNNING"}, {State: s}}})
		}
		return js
	}
	var stages []stageDown
	var since []time.Time
	stages, since = trackStages(st("RUNNING", "RUNNING"), stages, since, t0)
	stages, since = trackStages(st("RUNNING", "DEPLOYING"), stages, since, t0.Add(100*time.Millisecond))
	stages, since = trackStages(st("RUNNING", "RUNNING"), stages, since, t0.Add(400*time.Millisecond))
	stages, _ = trackStages(st("RUNNING", "RUNNING"), stages, since, t0.Add(500*time.Millisecond))
	if stages[0].restarted || stages[0].notRunning != 0 {
		t.Errorf("stage 0: %+v, want untouched", stages[0])
	}
	if !stages[1].restarted || stages[1].notRunning != 300*time.Millisecond {
		t.Errorf("stage 1: %+v, want restarted, 300ms not running", stages[1])
	}
}

func TestPointAddsUpCountersOverAttempts(t *testing.T) {
	r := &stepRun{start: time.Now()}
	status := func(src, sink int64) api.JobStatus {
		return api.JobStatus{Vertices: []api.VertexStatus{{RecordsOut: src}, {RecordsIn: sink}}}
	}
	// A rescale between the second and third samples: the counters start
	// again at 0 and count 30 more.
	for _, c := range [][2]int64{{100, 90}, {200, 180}, {30, 20}} {
		r.series = append(r.series, r.point(status(c[0], c[1])))
	}
	if p := r.series[2]; p.src != 230 || p.sink != 200 {
		t.Errorf("added up %d out, %d in; want 230, 200", p.src, p.sink)
	}
}

func TestStepsFollowTheSourceRate(t *testing.T) {
	r := &stepRun{}
	for i, x := range []float64{2000, 2000, 90000, 0, 100000, 100000, 2000, 2000} {
		r.series = append(r.series, stepPoint{T: float64(i), SourceRate: x})
	}
	if up, down := r.steps(); up != 2 || down != 6 {
		t.Errorf("steps at %v and %v, want 2 and 6", up, down)
	}
}
