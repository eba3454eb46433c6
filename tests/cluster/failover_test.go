package cluster

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestJobSurvivesASchedulerRestart runs word count with checkpoints every
// 500 ms and the exactly-once file sink, SIGKILLs the only scheduler
// mid-run and starts it again with the same data directory and ports. The
// scheduler gets the job back from its log; the task managers register
// again with the tasks they kept running, which it adopts, so the job
// goes on in the same attempt, and checkpoints continue. The committed
// output must hold, for every word, each count 1..n exactly once.
func TestJobSurvivesASchedulerRestart(t *testing.T) {
	c := newCluster(t, clusterConfig{taskManagers: 2, slots: 2})
	in := newInput(t, 1_000_000, 33)
	out := filepath.Join(t.TempDir(), "out")
	spec := wordcountSpec(t, "scheduler-restart", "\nrestartStrategy: {type: fixedDelay, attempts: 10, delay: 500ms}\n")
	// About 118K lines at 8K lines/s: the job runs ~15 s undisturbed.
	id := c.submit(spec, "--set", "input="+in.path, "--set", "output="+out, "--set", "rate=8000",
		"--parallelism", "2", "--checkpoint-interval", "500ms")
	before := c.waitCheckpointAfter(id, c.waitCheckpointAfter(id, 0))
	job := c.job(id)
	t.Logf("SIGKILL the scheduler with the job %s, attempt %d, checkpoint %d complete", job.State, job.Attempt, before)
	killed := time.Now()
	c.restartScheduler()
	t.Logf("scheduler serving again %s after the kill", time.Since(killed).Round(time.Millisecond))
	if got := c.job(id); got.Attempt != job.Attempt || got.Name != job.Name {
		t.Errorf("after the restart the job is %s attempt %d, want attempt %d", got.Name, got.Attempt, job.Attempt)
	}
	next := c.waitCheckpointAfter(id, before)
	t.Logf("checkpoint %d completed %s after the kill", next, time.Since(killed).Round(time.Millisecond))
	c.wait(id, 4*time.Minute)
	end := c.job(id)
	adopted := false
	for _, e := range end.History {
		adopted = adopted || strings.Contains(e.Message, "adopted after a scheduler failover")
	}
	if !adopted || end.Attempt != job.Attempt {
		t.Errorf("the running tasks were not adopted: attempt %d at the end, %d at the kill; history: %+v", end.Attempt, job.Attempt, end.History)
	}
	checkEachCountOnce(t, out, in)
}
