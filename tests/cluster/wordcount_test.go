package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

func TestWordCountSpreadsOverTaskManagers(t *testing.T) {
	c := newCluster(t, clusterConfig{taskManagers: 2, slots: 2})
	in := newInput(t, 300_000, 11)
	if in.bytes < 1<<20 {
		t.Fatalf("input of %d bytes, want at least 1 MB", in.bytes)
	}
	out := filepath.Join(t.TempDir(), "out")
	id := c.submit(wordcountSpec(t, "wordcount-spread", ""),
		"--set", "input="+in.path, "--set", "output="+out, "--parallelism", "4")
	c.wait(id, 2*time.Minute)
	in.check(t, out, 4)

	r := c.floe(time.Minute, "job", "status", id, "-o", "json")
	var job api.JobStatus
	if err := json.Unmarshal([]byte(r.stdout), &job); r.code != 0 || err != nil {
		t.Fatalf("floe job status -o json: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if job.ID != id || job.State != api.JobFinished || job.Attempt != 1 || job.Parallelism != 4 {
		t.Errorf("job %s: state %s, attempt %d, parallelism %d; want %s, FINISHED, 1, 4",
			job.ID, job.State, job.Attempt, job.Parallelism, id)
	}
	tms := c.taskManagerIDs()
	checkSpread(t, job, 4, tms)
	if len(job.Vertices) == 2 {
		src, count := job.Vertices[0], job.Vertices[1]
		if src.RecordsIn != in.lines || src.RecordsOut != in.words || count.RecordsIn != in.words {
			t.Errorf("records: source read %d lines and wrote %d words, count read %d; want %d, %d, %d",
				src.RecordsIn, src.RecordsOut, count.RecordsIn, in.lines, in.words, in.words)
		}
	}
}

// checkSpread checks that every vertex of a finished job ran par subtasks,
// all finished, on slots shared as the scheduler promises (subtask i of
// every vertex on the same task manager) and spread evenly over tms.
func checkSpread(t *testing.T, job api.JobStatus, par int, tms []string) {
	t.Helper()
	if len(job.Vertices) != 2 {
		t.Fatalf("%d vertices, want 2 (lines -> split -> by-word, count -> out): %+v", len(job.Vertices), job.Vertices)
	}
	for _, v := range job.Vertices {
		if v.Parallelism != par || len(v.Subtasks) != par {
			t.Errorf("vertex %q: parallelism %d with %d subtasks, want %d", v.Name, v.Parallelism, len(v.Subtasks), par)
			continue
		}
		per := map[string]int{}
		for i, s := range v.Subtasks {
			per[s.TaskManager]++
			if s.State != api.TaskFinished {
				t.Errorf("vertex %q subtask %d: %s, want FINISHED", v.Name, i, s.State)
			}
			if first := job.Vertices[0].Subtasks[i].TaskManager; s.TaskManager != first {
				t.Errorf("vertex %q subtask %d runs on %s, subtask %d of the source on %s: slot %d is not shared",
					v.Name, i, s.TaskManager, i, first, i)
			}
		}
		for _, tm := range tms {
			if per[tm] != par/len(tms) {
				t.Errorf("vertex %q: %d subtasks on %s, want %d on each of %v: %v", v.Name, per[tm], tm, par/len(tms), tms, per)
			}
		}
	}
}

func TestKilledTaskManagerRestartsTheJobOnTheOthers(t *testing.T) {
	killTaskManagerMidJob(t, 3)
}

func TestOneRestartSurvivesAKilledTaskManager(t *testing.T) {
	killTaskManagerMidJob(t, 1)
}

// killTaskManagerMidJob runs a rate-limited word count at parallelism 2 on
// three task managers of two slots, so that one is spare, with a fixed-delay
// restart strategy of attempts restarts. Once records flow it kills a task
// manager that runs a subtask with SIGKILL. The job must restart on the
// other two and finish with the right counts, and the scheduler must forget
// the dead task manager.
func killTaskManagerMidJob(t *testing.T, attempts int) {
	c := newCluster(t, clusterConfig{taskManagers: 3, slots: 2})
	// About 12,000 lines at 2,500 lines/s: each attempt runs for ~5 s.
	in := newInput(t, 100_000, 5)
	out := filepath.Join(t.TempDir(), "out")
	strategy := fmt.Sprintf("restartStrategy: {type: fixedDelay, attempts: %d, delay: 1s}\n", attempts)
	id := c.submit(wordcountSpec(t, fmt.Sprint("wordcount-restart-", attempts), strategy),
		"--set", "input="+in.path, "--set", "output="+out, "--set", "rate=2500", "--parallelism", "2")
	job := c.waitJob(id, time.Minute, "running with records out", func(j api.JobStatus) bool {
		return j.State == api.JobRunning && len(j.Vertices) > 0 && j.Vertices[0].RecordsOut > 0
	})
	victim := c.taskManager(job.Vertices[0].Subtasks[0].TaskManager)
	t.Logf("killing %s (%s) after %d words", victim.name, victim.id, job.Vertices[0].RecordsOut)
	victim.kill()

	// The scheduler forgets the dead task manager within its heartbeat
	// timeout, and lists the others.
	var live []string
	for _, p := range c.taskManagerProcs() {
		if p != victim {
			live = append(live, p.id)
		}
	}
	err := c.poll(time.Minute, func() (bool, error) { return slices.Equal(c.taskManagerIDs(), live), nil })
	if err != nil {
		t.Errorf("task managers %v after killing %s, want %v", c.taskManagerIDs(), victim.id, live)
	}

	c.wait(id, 2*time.Minute)
	job = c.job(id)
	if job.Attempt < 2 {
		t.Errorf("attempt %d, want a restart", job.Attempt)
	}
	checkRestarted(t, job)
	for _, v := range job.Vertices {
		for _, s := range v.Subtasks {
			if s.TaskManager == victim.id {
				t.Errorf("vertex %q subtask %d ran on the killed %s", v.Name, s.Subtask, victim.id)
			}
		}
	}
	in.check(t, out, 2)

	r := c.floe(time.Minute, "job", "status", id)
	if r.code != 0 || !strings.Contains(r.stdout, "RESTARTING") || !strings.Contains(r.stdout, "FINISHED") {
		t.Errorf("floe job status: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// checkRestarted checks a finished job's history: the first attempt ran,
// the job restarted, and its last attempt ran to the end. It logs the
// history.
func checkRestarted(t *testing.T, job api.JobStatus) {
	t.Helper()
	var states []string
	for _, e := range job.History {
		states = append(states, e.State)
		t.Logf("  %s: %s", e.State, e.Message)
	}
	restart := slices.Index(states, api.JobRestarting)
	last := len(states) - 1
	switch {
	case restart < 0:
		t.Errorf("no RESTARTING in the history")
	case slices.Index(states, api.JobRunning) > restart:
		t.Errorf("the job restarted before it ran")
	case last < 2 || states[last] != api.JobFinished || states[last-1] != api.JobRunning:
		t.Errorf("the history does not end with RUNNING, FINISHED")
	}
}

func TestJobWaitsForSlots(t *testing.T) {
	c := newCluster(t, clusterConfig{taskManagers: 1, slots: 2})
	in := newInput(t, 50_000, 7)
	out := filepath.Join(t.TempDir(), "out")
	spec := wordcountSpec(t, "wordcount-waits", "")
	args := []string{"--set", "input=" + in.path, "--set", "output=" + out, "--parallelism", "4"}
	// Refused unless the user says to wait: 4 slots of a 2-slot cluster.
	r := c.floe(time.Minute, append([]string{"job", "submit", spec}, args...)...)
	if r.code == 0 || !strings.Contains(r.stderr, "needs 4 slots") || !strings.Contains(r.stderr, "have 2 in all") ||
		!strings.Contains(r.stderr, "--wait-for-slots") {
		t.Fatalf("floe job submit of a job larger than the cluster: exit %d, stdout %q, stderr %q; want a refusal naming the slots and --wait-for-slots",
			r.code, r.stdout, r.stderr)
	}
	if jobs, err := c.client.Jobs(context.Background()); err != nil || len(jobs) != 0 {
		t.Fatalf("jobs after a refused submit: %v, %v", jobs, err)
	}
	id := c.submit(append([]string{spec, "--wait-for-slots"}, args...)...)
	job := c.waitJob(id, time.Minute, "waiting for slots", func(j api.JobStatus) bool {
		return j.State == api.JobWaiting && strings.Contains(j.Message, "slots")
	})
	for _, w := range []string{"needs 4 slots", "2 free"} {
		if !strings.Contains(job.Message, w) {
			t.Errorf("message %q does not say %q", job.Message, w)
		}
	}
	r = c.floe(time.Minute, "job", "status", id)
	if r.code != 0 || !strings.Contains(r.stdout, "WAITING") || !strings.Contains(r.stdout, "needs 4 slots") {
		t.Errorf("floe job status: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// It keeps waiting while nothing changes.
	for range 5 {
		time.Sleep(200 * time.Millisecond)
		if job = c.job(id); job.State != api.JobWaiting {
			t.Fatalf("job %s with 2 slots of the 4 it needs: %s", job.State, job.Message)
		}
	}

	c.startTaskManager(2)
	c.wait(id, 2*time.Minute)
	in.check(t, out, 4)
	job = c.job(id)
	checkSpread(t, job, 4, c.taskManagerIDs())
	var states []string
	for _, e := range job.History {
		states = append(states, e.State)
	}
	if want := []string{"WAITING", "DEPLOYING", "RUNNING", "FINISHED"}; !slices.Equal(states, want) {
		t.Errorf("history %v, want %v", states, want)
	}
	if job.Attempt != 1 {
		t.Errorf("attempt %d, want 1", job.Attempt)
	}
}
