package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// TestJobAutoscaler changes a job's policy with flags (the others keep
// theirs) and shows it; a bad value is the scheduler's 400.
func TestJobAutoscaler(t *testing.T) {
	c := startCluster(t)
	id := c.submitCheckpointed(t)
	r := runFloe("job", "autoscaler", id, "--server", c.url, "--enable", "--max-parallelism", "8", "--cooldown", "1m")
	want := "Autoscaler of " + id + ": enabled; target utilization 70%, stabilization 1m0s, cooldown 1m0s, every 10s, parallelism 1..8\nRescales: 0\n"
	if r.code != 0 || r.stdout != want || r.stderr != "" {
		t.Errorf("got %+v, want stdout %q", r, want)
	}
	r = runFloe("job", "autoscaler", id, "--server", c.url, "--target-utilization", "0.5")
	if !strings.Contains(r.stdout, "enabled; target utilization 50%, stabilization 1m0s, cooldown 1m0s") {
		t.Errorf("the other settings were not kept: %+v", r)
	}
	r = runFloe("job", "autoscaler", id, "--server", c.url, "--max-lag", "30s")
	if !strings.Contains(r.stdout, ", event-time lag under 30s\n") {
		t.Errorf("--max-lag: %+v", r)
	}
	r = runFloe("job", "autoscaler", id, "--server", c.url, "--max-backlog", "100000")
	if !strings.Contains(r.stdout, ", event-time lag under 30s, backlog under 100000 records\n") {
		t.Errorf("--max-backlog: %+v", r)
	}
	r = runFloe("job", "autoscaler", id, "--server", c.url, "--target-utilization", "3")
	if r.code != 1 || !strings.Contains(r.stderr, "targetUtilization: must be a number above 0 and at most 1") {
		t.Errorf("got %+v, want the scheduler's refusal", r)
	}
	if r := runFloe("job", "autoscaler", id, "--server", c.url, "--enable", "--disable"); r.code != 2 {
		t.Errorf("--enable --disable: got %+v, want exit 2", r)
	}
}

func TestPrintAutoscaler(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st := api.AutoscalerStatus{ID: "job-1", Rescales: 1, LastRescale: &at, SlotsMissing: 2,
		Config: api.AutoscalerConfig{Enabled: true, TargetUtilization: 0.7, Stabilization: "1m0s", Cooldown: "30s", Interval: "10s",
			MaxScaleUpFactor: 2, Schedule: []api.AutoscalerWindow{{From: "08:00", To: "20:00", MinParallelism: 4}}},
		Decisions: []api.AutoscalerDecision{
			{At: at.Add(time.Minute), Reason: "no change: every vertex is at its computed parallelism; not enough slots: the computed parallelism needs 6, 2 missing",
				SlotsNeeded: 6, SlotsMissing: 2, Vertices: []api.AutoscalerVertex{
					{Stage: 1, Name: "count", Current: 4, Computed: 6, New: 4, Required: 20000, Observed: 12000, TrueRate: 3000,
						Busiest: 0, Busy: 1, HotShare: 0, Notes: []string{"6 capped to 4 by slots (the job holds 4, 0 free)"}}}},
			{At: at, Change: true, Reason: "rescale", Journaled: true},
		}}
	var out bytes.Buffer
	if err := printAutoscaler(&out, st); err != nil {
		t.Fatal(err)
	}
	want := `Autoscaler of job-1: enabled; target utilization 70%, stabilization 1m0s, cooldown 30s, every 10s, up at most ×2, 08:00-20:00 UTC parallelism 4..-
Rescales: 1, the last at 2026-01-02T03:04:05Z; 2 slots missing

2026-01-02T03:05:05Z (latest, leader only): no change: every vertex is at its computed parallelism; not enough slots: the computed parallelism needs 6, 2 missing
  VERTEX   CURRENT  COMPUTED  NEW  REQUIRED/S  OBSERVED/S  TRUE RATE  BUSIEST  BUSY  HOT  NOTES
  1 count  4        6         4    20.0k       12.0k       3.0k       0        100%  0%   6 capped to 4 by slots (the job holds 4, 0 free)

2026-01-02T03:04:05Z (journaled): rescale
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
