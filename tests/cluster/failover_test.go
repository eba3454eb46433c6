package cluster

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/client"
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
	if !adoptedIn(end.History, job.Attempt) || end.Attempt != job.Attempt {
		t.Errorf("the running tasks were not adopted: attempt %d at the end, %d at the kill; history: %+v", end.Attempt, job.Attempt, end.History)
	}
	checkEachCountOnce(t, out, in)
}

// member is one scheduler of a group.
type member struct {
	p               *proc
	name            string
	rest, rpc, raft string
	// args are the flags it was started with, to start it again.
	args []string
}

// startGroup starts n schedulers as one group on free ports and waits until
// each serves REST and one leads. The cluster's server and rpc become the
// lists of every member's addresses, so that its clients and task managers
// follow the leader.
func (c *cluster) startGroup(n int) []*member {
	c.t.Helper()
	var ms []*member
	var peers, rests, rpcs []string
	for i := range n {
		m := &member{name: fmt.Sprintf("scheduler-%d", i+1), rest: freeAddr(c.t), rpc: freeAddr(c.t), raft: freeAddr(c.t)}
		ms = append(ms, m)
		peers, rests, rpcs = append(peers, m.raft), append(rests, c.scheme()+"://"+m.rest), append(rpcs, m.rpc)
	}
	for i, m := range ms {
		m.args = []string{"scheduler", "--rest-addr", m.rest, "--rpc-addr", m.rpc,
			"--data-dir", filepath.Join(c.dir, m.name),
			"--heartbeat-interval", heartbeatInterval, "--heartbeat-timeout", heartbeatTimeout,
			"--ha-addr", m.raft, "--ha-peers", strings.Join(peers, ","), "--ha-election-timeout", "1s"}
		if c.certs != "" {
			m.args = append(m.args, "--tls-dir", filepath.Join(c.certs, "scheduler"), "--allowed-paths", filepath.Dir(c.dir))
		}
		m.p = startProc(c.t, &c.wg, m.name, m.args...)
		if i == 0 {
			c.sched = m.p
		} else {
			c.others = append(c.others, m.p)
		}
	}
	c.server, c.rpc = strings.Join(rests, ","), strings.Join(rpcs, ",")
	c.client = client.New(c.server, c.hc)
	for _, m := range ms {
		c.awaitMember(m)
	}
	c.leader(ms)
	return ms
}

// awaitMember waits until member m serves REST.
func (c *cluster) awaitMember(m *member) {
	c.t.Helper()
	err := c.poll(startTimeout, func() (bool, error) {
		if m.p.exited() {
			return false, fmt.Errorf("exited with %v", m.p.cmd.ProcessState)
		}
		resp, err := c.hc.Get(c.scheme() + "://" + m.rest + "/healthz")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		c.t.Fatalf("%s did not start: %v\n%s", m.p.name, err, m.p.logTail())
	}
}

// restartMember starts member m, which must have exited, again with the
// same flags, ports and data directory, and waits until it serves REST.
func (c *cluster) restartMember(m *member) {
	c.t.Helper()
	if !m.p.exited() {
		c.t.Fatalf("%s still runs", m.name)
	}
	m.p = startProc(c.t, &c.wg, m.name, m.args...)
	c.others = append(c.others, m.p)
	c.awaitMember(m)
}

// leader returns the member that leads, waiting for one.
func (c *cluster) leader(ms []*member) *member {
	c.t.Helper()
	var lead *member
	err := c.poll(startTimeout, func() (bool, error) {
		st, err := c.client.Cluster(context.Background())
		if err != nil {
			return false, nil
		}
		for _, m := range ms {
			if m.raft == st.Leader && !m.p.exited() {
				lead = m
			}
		}
		return lead != nil, nil
	})
	if err != nil {
		c.t.Fatalf("no scheduler of the group leads: %v", err)
	}
	return lead
}

// TestJobSurvivesTheLeaderLossInAGroupOfThree runs word count with
// checkpoints and the exactly-once file sink on a group of three
// schedulers, and SIGKILLs the leader mid-run. A follower takes over from
// the log it applied; the task managers, given the three schedulers, find
// it and register again with their tasks, which it adopts, so the job goes
// on in the same attempt. Then both task managers are SIGKILLed and a
// fresh one started: the job restarts from its latest checkpoint, the
// modules coming from the new leader. Every word's counts appear exactly
// once.
func TestJobSurvivesTheLeaderLossInAGroupOfThree(t *testing.T) {
	c, ms, id, in, out := startGroupWordCount(t, "leader-loss", 1_000_000, 35, 8000)
	before := c.waitCheckpointAfter(id, c.waitCheckpointAfter(id, 0))
	job := c.job(id)
	lead := c.leader(ms)
	t.Logf("SIGKILL the leader %s with the job %s, attempt %d, checkpoint %d complete", lead.p.name, job.State, job.Attempt, before)
	killed := time.Now()
	lead.p.kill()
	next := c.leader(ms)
	t.Logf("%s leads %s after the kill", next.p.name, time.Since(killed).Round(time.Millisecond))
	cp := c.waitCheckpointAfter(id, before)
	t.Logf("checkpoint %d completed %s after the kill", cp, time.Since(killed).Round(time.Millisecond))
	after := c.job(id)
	if !adoptedIn(after.History, job.Attempt) || after.Attempt != job.Attempt {
		t.Errorf("the running tasks were not adopted: attempt %d after the failover, %d at the kill; history: %+v", after.Attempt, job.Attempt, after.History)
	}
	// Then both task managers die: the job restarts from its latest
	// checkpoint on a fresh one, which fetches the modules from the new
	// leader (they reached it through the log).
	for _, p := range c.taskManagerProcs() {
		p.kill()
	}
	t.Logf("SIGKILL both task managers; a fresh one starts")
	c.startTaskManager(2)
	c.wait(id, 4*time.Minute)
	if end := c.job(id); end.Attempt <= after.Attempt {
		t.Errorf("attempt %d at the end, want a new one after the task managers died", end.Attempt)
	}
	checkEachCountOnce(t, out, in)
}

// TestPausedLeaderIsFenced SIGSTOPs the leader of a group of three for
// longer than the election timeout and the task managers' heartbeat
// timeout, lets a new leader adopt the job, then SIGCONTs the old one. The
// old leader steps down; whatever it still sends carries its old term and
// is refused. The job finishes in the attempt it had, without a second
// deployment, and every count appears exactly once (no double commit).
func TestPausedLeaderIsFenced(t *testing.T) {
	c, ms, id, in, out := startGroupWordCount(t, "paused-leader", 1_000_000, 37, 8000)
	before := c.waitCheckpointAfter(id, c.waitCheckpointAfter(id, 0))
	job := c.job(id)
	old := c.leader(ms)
	t.Logf("SIGSTOP the leader %s with the job %s, attempt %d, checkpoint %d complete", old.p.name, job.State, job.Attempt, before)
	old.p.cmd.Process.Signal(syscall.SIGSTOP)
	stopped := time.Now()
	// NB: a paused scheduler accepts connections but never answers: the
	// test's client asks the others meanwhile.
	all := c.client
	var others []string
	for _, m := range ms {
		if m != old {
			others = append(others, "http://"+m.rest)
		}
	}
	c.client = client.New(strings.Join(others, ","), c.hc)
	var next *member
	if err := c.poll(startTimeout, func() (bool, error) {
		st, err := c.client.Cluster(context.Background())
		if err != nil {
			return false, nil
		}
		for _, m := range ms {
			if m != old && m.raft == st.Leader {
				next = m
			}
		}
		return next != nil, nil
	}); err != nil {
		t.Fatalf("no new leader while %s is paused: %v", old.p.name, err)
	}
	cp := c.waitCheckpointAfter(id, before)
	t.Logf("%s leads; checkpoint %d completed %s after the pause", next.p.name, cp, time.Since(stopped).Round(time.Millisecond))
	old.p.cmd.Process.Signal(syscall.SIGCONT)
	t.Logf("SIGCONT %s", old.p.name)
	c.client = all
	c.wait(id, 4*time.Minute)
	end := c.job(id)
	if !adoptedIn(end.History, job.Attempt) || end.Attempt != job.Attempt {
		t.Errorf("the job was deployed again: attempt %d at the end, %d at the pause; history: %+v", end.Attempt, job.Attempt, end.History)
	}
	checkEachCountOnce(t, out, in)
}

// startGroupWordCount starts a group of three schedulers and two task
// managers of two slots, and submits a word count over words words (from
// seed) at rate lines/s, with checkpoints every 500ms and the exactly-once
// file sink. It returns once the job is visible through the test's client,
// which may ask a follower: that applies the leader's log a moment later.
func startGroupWordCount(t *testing.T, name string, words int, seed uint64, rate int) (*cluster, []*member, string, input, string) {
	t.Helper()
	tr := &http.Transport{ExpectContinueTimeout: 5 * time.Second, MaxIdleConnsPerHost: 4}
	c := &cluster{t: t, dir: t.TempDir(), hc: &http.Client{Transport: tr, Timeout: time.Minute}}
	t.Cleanup(c.close)
	ms := c.startGroup(3)
	c.startTaskManager(2)
	c.startTaskManager(2)
	in := newInput(t, words, seed)
	out := filepath.Join(t.TempDir(), "out")
	spec := wordcountSpec(t, name, "\nrestartStrategy: {type: fixedDelay, attempts: 10, delay: 500ms}\n")
	id := c.submit(spec, "--set", "input="+in.path, "--set", "output="+out, "--set", fmt.Sprintf("rate=%d", rate),
		"--parallelism", "2", "--checkpoint-interval", "500ms")
	if err := c.poll(10*time.Second, func() (bool, error) {
		_, err := c.client.Job(context.Background(), id)
		return err == nil, nil
	}); err != nil {
		t.Fatalf("job %s is not visible: %v", id, err)
	}
	return c, ms, id, in, out
}
