package scheduler

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/autoscale"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
)

// TestAutoscalerVertices checks that a plan's stages become the decision
// core's vertices with their inputs and key groups.
func TestAutoscalerVertices(t *testing.T) {
	p := &plan.Plan{Job: &jobspec.Job{MaxParallelism: 16}, Stages: []plan.Stage{
		{Name: "a", Parallelism: 2, Source: &jobspec.Source{}},
		{Name: "b", Parallelism: 1, Source: &jobspec.Source{}},
		{Name: "join", Parallelism: 4, Inputs: []plan.Edge{{From: 0, To: 2}, {From: 1, To: 2, Input: 1}}},
	}}
	want := []autoscale.Vertex{
		{ID: 0, Name: "a", Parallelism: 2, KeyGroups: 16, Source: true},
		{ID: 1, Name: "b", Parallelism: 1, KeyGroups: 16, Source: true},
		{ID: 2, Name: "join", Parallelism: 4, KeyGroups: 16, Inputs: []int{0, 1}},
	}
	if got := vertices(p); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// TestObserveFinished: a finished subtask, which heartbeats no more, is
// fed to the autoscaler as idle with its final counts; a running one is
// left to its heartbeats.
func TestObserveFinished(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j := &lifecycle.Job{Attempt: 3, Tasks: [][]*lifecycle.Task{
		{{State: api.TaskFinished, RecordsIn: 10, RecordsOut: 10}, {State: api.TaskRunning, RecordsIn: 7}},
	}}
	var sc autoscale.Scaler
	sc.Observe(3, 0, 0, autoscale.Counters{At: t0, RecordsIn: 4, RecordsOut: 4})
	observeFinished(&sc, j, t0.Add(2*time.Second))
	want := []autoscale.Sample{{At: t0.Add(2 * time.Second), Interval: 2 * time.Second, RecordsIn: 6, RecordsOut: 6, Idle: 1}}
	if got := sc.Samples(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestSettledSince(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		running, rescaled, want time.Time
	}{
		{t0, time.Time{}, t0},                          // never rescaled: since it runs
		{t0.Add(time.Second), t0, t0.Add(time.Second)}, // the rescaled attempt runs
		{t0, t0.Add(time.Second), t0.Add(time.Second)}, // a rescale asked, the old attempt still runs
	}
	for _, tt := range tests {
		j := &lifecycle.Job{RunningSince: tt.running, Autoscaler: lifecycle.Autoscaling{LastRescale: tt.rescaled}}
		if got := settledSince(j); !got.Equal(tt.want) {
			t.Errorf("running %s, rescaled %s: %s, want %s", tt.running, tt.rescaled, got, tt.want)
		}
	}
}

// TestAutoscalerStatus: journaled decisions newest first, the leader's
// latest no-change decision before them, its missing slots on top, and
// the policy with its defaults.
func TestAutoscalerStatus(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j := &lifecycle.Job{ID: "j", Autoscaler: lifecycle.Autoscaling{
		Config:      jobspec.Autoscaler{Enabled: true, MaxParallelism: 8},
		LastRescale: t0.Add(time.Minute), Rescales: 2,
		Decisions: []autoscale.Decision{{At: t0, Change: true, Reason: "rescale"}, {At: t0.Add(time.Minute), Change: true, Reason: "rescale"}},
	}}
	latest := &autoscale.Decision{At: t0.Add(2 * time.Minute), Reason: "no change; not enough slots", SlotsNeeded: 6, SlotsMissing: 2,
		Vertices: []autoscale.VertexDecision{{ID: 1, Name: "count", Current: 4, Computed: 6, New: 4, Notes: []string{"skew: hot"}}}}
	st := autoscalerStatus(j, latest)
	if st.SlotsMissing != 2 || st.Rescales != 2 || st.LastRescale == nil || !st.LastRescale.Equal(t0.Add(time.Minute)) {
		t.Errorf("status %+v", st)
	}
	var ats []time.Duration
	for _, d := range st.Decisions {
		ats = append(ats, d.At.Sub(t0))
	}
	if want := []time.Duration{2 * time.Minute, time.Minute, 0}; !reflect.DeepEqual(ats, want) || st.Decisions[0].Journaled || !st.Decisions[1].Journaled {
		t.Errorf("decisions at %v (journaled %v, %v), want %v", ats, st.Decisions[0].Journaled, st.Decisions[1].Journaled, want)
	}
	if v := st.Decisions[0].Vertices[0]; v.Stage != 1 || !v.Skewed || v.Computed != 6 {
		t.Errorf("vertex %+v", v)
	}
	want := api.AutoscalerConfig{Enabled: true, MaxParallelism: 8, TargetUtilization: 0.7, Stabilization: "1m0s", Cooldown: "30s", Interval: "10s"}
	if !reflect.DeepEqual(st.Config, want) {
		t.Errorf("config %+v, want %+v", st.Config, want)
	}
}

// TestAutoscalerPolicyIsJournaled sets a job's autoscaler through a
// follower (which forwards the PUT to the leader): every member has the
// policy, and once the leader is gone the new one still has it.
func TestAutoscalerPolicyIsJournaled(t *testing.T) {
	g := startGroup(t, 3)
	leader, f := g.leader(), g.follower()
	waitUntil(t, func() bool { _, err := f.leaderREST(); return err == nil })
	id, err := leader.Submit(context.Background(), api.Submission{CheckpointInterval: time.Second,
		Spec: []byte("name: j\nsource: {type: generator, uid: src, rate: 10}\nsink: {type: stdout, uid: out}\n")})
	if err != nil {
		t.Fatal(err)
	}
	resp, body := g.do(t, f, http.MethodPut, "/v1/jobs/"+id+"/autoscaler", `{"enabled": true, "maxParallelism": 4}`,
		http.Header{"Content-Type": {"application/json"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"enabled":true`) {
		t.Fatalf("PUT through a follower: %s %s", resp.Status, body)
	}
	enabled := func(s *Server) bool {
		st, err := s.Autoscaler(context.Background(), id)
		return err == nil && st.Config.Enabled && st.Config.MaxParallelism == 4
	}
	for _, s := range g.servers {
		waitUntil(t, func() bool { return enabled(s) })
	}
	for i, s := range g.servers {
		if s == leader {
			g.stop[i]()
		}
	}
	waitUntil(t, func() bool { l := g.leader(); return l != nil && l != leader })
	if l := g.leader(); !enabled(l) {
		t.Errorf("the new leader lost the policy")
	}
}
