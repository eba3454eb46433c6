package cluster

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/nexmark"
)

// TestWindowsAcrossTaskManagerKill runs Nexmark q5 (sliding windows, then
// tumbling ones, on event-time timers) with checkpoints, SIGKILLs a task
// manager that runs part of it once a checkpoint has completed, and starts
// a fresh one. The committed output must equal the brute-force result over
// the same events: no window lost, none fired twice.
func TestWindowsAcrossTaskManagerKill(t *testing.T) {
	const events = 400_000
	want := nexmarkQ5(t, events)
	b, err := os.ReadFile(filepath.Join(repoRoot, "udfs", "nexmark", "q5.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// NB: no restartStrategy: with checkpoints on, a job restarts by
	// default (exponentialDelay from 1 s), as Flink's does; this job must
	// survive the kill on that default alone.
	spec := writeSpec(t, "q5", string(b))
	c := newCluster(t, clusterConfig{taskManagers: 2, slots: 3})
	out := filepath.Join(t.TempDir(), "out")
	// 400K events at 40K/s: about 10 s undisturbed.
	id := c.submit(spec, "--set", "events=400000", "--set", "rate=40000", "--set", "output="+out,
		"--checkpoint-interval", "500ms")
	c.waitCheckpointAfter(id, 0)
	time.Sleep(time.Second)
	job := c.job(id)
	victim := job.Vertices[len(job.Vertices)-1].Subtasks[0].TaskManager
	p := c.taskManager(victim)
	t.Logf("SIGKILL %s (%s) with the job %s, attempt %d", p.name, victim, job.State, job.Attempt)
	killed := time.Now()
	p.kill()
	c.startTaskManager(3)
	c.wait(id, 3*time.Minute)
	end := c.job(id)
	if end.Attempt < 2 {
		t.Errorf("attempt %d at the end: the kill did not fail the job", end.Attempt)
	}
	// The failed attempt is blamed on the killed task manager, not on the
	// survivor whose task saw its channel break first.
	i := slices.IndexFunc(end.History, func(e api.Event) bool { return e.State == api.JobRestarting && e.Time.After(killed) })
	switch {
	case i < 0:
		t.Errorf("no restart after the kill in the history: %+v", end.History)
	case !strings.Contains(end.History[i].Message, "after: task manager "+victim+" at ") || !strings.Contains(end.History[i].Message, " lost"):
		t.Errorf("the failure after the kill does not blame %s, the killed task manager: %q", victim, end.History[i].Message)
	default:
		t.Logf("the failure after the kill: %s", end.History[i].Message)
	}
	var got []string
	files, _ := filepath.Glob(filepath.Join(out, "part-*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l != "" {
				got = append(got, l)
			}
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("%d result lines, want %d\n got: %v\nwant: %v", len(got), len(want), got, want)
	}
}

// nexmarkQ5 is q5 over the first n events of the nexmark source, sorted.
func nexmarkQ5(t *testing.T, n int64) []string {
	t.Helper()
	ev, err := nexmark.Parse(nexmark.Generate(n, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := nexmark.Q5(ev)
	if len(want) < 10 {
		t.Fatalf("q5 has only %d results over %d events: the test would prove little", len(want), n)
	}
	slices.Sort(want)
	return want
}
