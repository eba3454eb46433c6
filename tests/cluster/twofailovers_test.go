package cluster

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
)

// TestJobSurvivesTwoLeaderLossesAndATaskManagerLoss runs word count with
// checkpoints and the exactly-once file sink on a group of three
// schedulers and, in one run: SIGKILLs the leader (the next one adopts
// the running tasks), SIGKILLs a task manager that runs part of the job
// (the job restarts from its latest checkpoint on a fresh one), then
// SIGKILLs the second leader (the third adopts the new attempt's tasks).
// The job finishes; every word's counts 1..n appear exactly once; and
// floe job list through each surviving scheduler shows it FINISHED.
//
// NB: a group of three acts only with two members up, so after the first
// kill a second one would leave it without a quorum. The test starts the
// first leader again, with its data directory, before the second kill,
// rather than running five schedulers: that is two fewer processes on a
// small test machine, and it also checks that a killed member rejoins
// from its own log and catches up, which a failover then relies on.
func TestJobSurvivesTwoLeaderLossesAndATaskManagerLoss(t *testing.T) {
	// About 236K lines at 6K lines/s: the job runs ~40 s undisturbed,
	// longer than the three kills and their recoveries take.
	c, ms, id, in, out := startGroupWordCount(t, "two-failovers", 2_000_000, 39, 6000)
	cp := c.waitCheckpointAfter(id, c.waitCheckpointAfter(id, 0))

	// First failover: the leader dies, the next adopts the tasks.
	first := c.leader(ms)
	second, cp := c.killLeader(ms, id, cp)
	t.Logf("%s leads after %s", second.name, first.name)

	// The first leader comes back, as a follower, so that the group keeps
	// a quorum through the second kill.
	c.restartMember(first)
	t.Logf("%s started again with its data directory", first.name)

	// A task manager that runs part of the job dies: the job restarts from
	// its latest checkpoint on a fresh one.
	job := c.job(id)
	victim := c.taskManager(job.Vertices[0].Subtasks[0].TaskManager)
	t.Logf("SIGKILL %s (%s) with the job %s, attempt %d", victim.name, victim.id, job.State, job.Attempt)
	tmKilled := time.Now()
	victim.kill()
	c.startTaskManager(2)
	restarted := c.waitJob(id, 2*time.Minute, "running in a new attempt", func(j api.JobStatus) bool {
		return j.Attempt > job.Attempt && j.State == api.JobRunning
	})
	cp = c.waitCheckpointOf(id, cp, restarted.Attempt)
	t.Logf("attempt %d running, checkpoint %d complete; since the kill: %s", restarted.Attempt, cp, eventsSince(restarted.History, tmKilled))

	// Second failover: the second leader dies once the first has caught
	// up with its log; the remaining two elect one, which adopts the new
	// attempt's tasks.
	c.awaitCaughtUp(first, second)
	third, _ := c.killLeader(ms, id, cp)
	t.Logf("%s leads after %s", third.name, second.name)

	c.wait(id, 4*time.Minute)
	if end := c.job(id); end.Attempt != restarted.Attempt {
		t.Errorf("attempt %d at the end, want %d: the second failover restarted the job; history: %+v", end.Attempt, restarted.Attempt, end.History)
	}
	checkEachCountOnce(t, out, in)
	var survivors []string
	for _, m := range ms {
		if !m.p.exited() {
			survivors = append(survivors, "http://"+m.rest)
		}
	}
	for _, server := range append(survivors, strings.Join(survivors, ",")) {
		c.awaitListed(server, id, api.JobFinished)
	}
}

// killLeader SIGKILLs the leader of the group ms while job id runs, whose
// checkpoint cp has completed. It waits for another member to lead and
// for a checkpoint after cp to complete, and checks that the new leader
// adopted the job's tasks: same attempt, and the history says so. It
// returns the new leader and the checkpoint.
func (c *cluster) killLeader(ms []*member, id string, cp int64) (*member, int64) {
	c.t.Helper()
	job := c.job(id)
	if api.Terminal(job.State) {
		c.t.Fatalf("job %s ended %s before the leader's kill: make its input longer", id, job.State)
	}
	lead := c.leader(ms)
	c.t.Logf("SIGKILL the leader %s with the job %s, attempt %d, checkpoint %d complete", lead.name, job.State, job.Attempt, cp)
	killed := time.Now()
	lead.p.kill()
	next := c.leader(ms)
	c.t.Logf("%s leads %s after the kill", next.name, time.Since(killed).Round(time.Millisecond))
	cp = c.waitCheckpointAfter(id, cp)
	c.t.Logf("checkpoint %d completed %s after the kill", cp, time.Since(killed).Round(time.Millisecond))
	after := c.job(id)
	if after.Attempt != job.Attempt || !adoptedIn(after.History, job.Attempt) {
		c.t.Errorf("%s did not adopt the running tasks: attempt %d after the failover, %d at the kill; history: %+v",
			next.name, after.Attempt, job.Attempt, after.History)
	}
	return next, cp
}

// adoptedIn reports whether history says that attempt was adopted after
// a scheduler failover.
func adoptedIn(history []api.Event, attempt int) bool {
	want := fmt.Sprintf("attempt %d adopted after a scheduler failover", attempt)
	for _, e := range history {
		if e.Message == want {
			return true
		}
	}
	return false
}

// eventsSince returns the messages of the events of history after t, for
// the log.
func eventsSince(history []api.Event, t time.Time) string {
	var msgs []string
	for _, e := range history {
		if e.Time.After(t) {
			msgs = append(msgs, fmt.Sprintf("%s %q", e.State, e.Message))
		}
	}
	return strings.Join(msgs, "; ")
}

// waitCheckpointOf waits for a completed checkpoint of job id's attempt
// with an id above after and returns its id.
func (c *cluster) waitCheckpointOf(id string, after int64, attempt int) int64 {
	c.t.Helper()
	for {
		after = c.waitCheckpointAfter(id, after)
		cps, err := c.client.Checkpoints(context.Background(), id)
		if err != nil {
			c.t.Fatalf("checkpoints of %s: %v", id, err)
		}
		for _, cp := range cps {
			if cp.ID == after && cp.Attempt == attempt {
				return after
			}
		}
	}
}

// awaitCaughtUp waits until member m, asked itself, knows the current
// leader lead and has applied what lead had applied when the wait began.
func (c *cluster) awaitCaughtUp(m, lead *member) {
	c.t.Helper()
	ctx := context.Background()
	want := c.applied(ctx, lead)
	mc := client.New("http://"+m.rest, c.hc)
	err := c.poll(time.Minute, func() (bool, error) {
		st, err := mc.Cluster(ctx)
		if err != nil || st.Leader != lead.raft {
			return false, nil
		}
		for _, mb := range st.Members {
			if mb.RaftAddr == m.raft {
				return mb.Applied >= want, nil
			}
		}
		return false, nil
	})
	if err != nil {
		c.t.Fatalf("%s did not catch up with %s's log (index %d): %v\n%s", m.name, lead.name, want, err, m.p.logTail())
	}
	c.t.Logf("%s has applied the log up to %d", m.name, want)
}

// applied returns the index member m, asked itself, has applied.
func (c *cluster) applied(ctx context.Context, m *member) uint64 {
	c.t.Helper()
	st, err := client.New("http://"+m.rest, c.hc).Cluster(ctx)
	if err != nil {
		c.t.Fatalf("GET /v1/cluster of %s: %v", m.name, err)
	}
	for _, mb := range st.Members {
		if mb.RaftAddr == m.raft {
			return mb.Applied
		}
	}
	c.t.Fatalf("%s does not list itself: %+v", m.name, st)
	return 0
}

// awaitListed runs floe job list --server server until it lists job id in
// state: a follower serves the state it has applied, which may be a
// moment behind the leader's.
func (c *cluster) awaitListed(server, id, state string) {
	c.t.Helper()
	var last result
	err := c.poll(30*time.Second, func() (bool, error) {
		last = runFloe(c.t, time.Minute, nil, "job", "list", "--server", server)
		if last.code != 0 {
			return false, nil
		}
		for _, line := range strings.Split(last.stdout, "\n") {
			if f := strings.Fields(line); len(f) >= 3 && f[0] == id {
				return f[2] == state, nil
			}
		}
		return false, nil
	})
	if err != nil {
		c.t.Fatalf("floe job list --server %s does not show job %s %s: %v\nexit %d, stdout:\n%s\nstderr:\n%s",
			server, id, state, err, last.code, last.stdout, last.stderr)
	}
	c.t.Logf("floe job list --server %s: job %s %s", server, id, state)
}
