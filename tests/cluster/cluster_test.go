package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
)

// Heartbeats of every test cluster: short, so that a killed task manager is
// declared lost within seconds.
const (
	heartbeatInterval = "300ms"
	heartbeatTimeout  = "3s"
)

// startTimeout bounds how long a process may take to start serving.
const startTimeout = 30 * time.Second

// cluster is a scheduler and its task managers, each a floe process, and
// clients of the scheduler's REST API.
type cluster struct {
	t      *testing.T
	dir    string
	server string // the REST API's base URL
	rpc    string // the address task managers connect to

	sched *proc
	// schedArgs are the scheduler's extra flags; others are the other
	// schedulers: those restartScheduler killed, whose logs a failed test
	// dumps, and the other members of a group (startGroup).
	schedArgs []string
	others    []*proc
	mu        sync.Mutex
	tms       []*proc

	hc     *http.Client
	client *client.Client
	// wg tracks the goroutines that reap the processes.
	wg sync.WaitGroup
	// certs, when not empty, is the directory `floe certs init` wrote:
	// every process runs mutual TLS and the REST API is HTTPS.
	certs string
}

// clusterConfig says what to start.
type clusterConfig struct {
	taskManagers int
	slots        int
	// schedulerArgs are extra flags of floe scheduler, taskManagerArgs of
	// every floe taskmanager.
	schedulerArgs   []string
	taskManagerArgs []string
	// tls runs every process with a certificate of its role from a CA
	// that `floe certs init` writes.
	tls bool
}

// newCluster starts a scheduler and cfg.taskManagers task managers with
// cfg.slots slots each, and waits until the scheduler lists them all. Every
// process is stopped when the test ends.
func newCluster(t *testing.T, cfg clusterConfig) *cluster {
	t.Helper()
	// NB: the Go client relies on "Expect: 100-continue" for clean 413s,
	// which needs ExpectContinueTimeout.
	tr := &http.Transport{ExpectContinueTimeout: 5 * time.Second, MaxIdleConnsPerHost: 4}
	c := &cluster{t: t, dir: t.TempDir(), hc: &http.Client{Transport: tr, Timeout: time.Minute}}
	t.Cleanup(c.close)
	if cfg.tls {
		c.initCerts()
		tr.TLSClientConfig = &tls.Config{RootCAs: c.caPool()}
		// NB: with TLS the scheduler confines jobs to its data directory
		// unless told otherwise; the test's inputs and outputs are all in
		// the test's temporary directories, beside c.dir.
		cfg.schedulerArgs = append(cfg.schedulerArgs, "--tls-dir", filepath.Join(c.certs, "scheduler"),
			"--allowed-paths", filepath.Dir(c.dir))
		cfg.taskManagerArgs = append(cfg.taskManagerArgs, "--tls-dir", filepath.Join(c.certs, "taskmanager"))
	}
	c.startScheduler(cfg.schedulerArgs)
	for range cfg.taskManagers {
		c.startTaskManager(cfg.slots, cfg.taskManagerArgs...)
	}
	return c
}

// scheme is the REST API's URL scheme.
func (c *cluster) scheme() string {
	if c.certs != "" {
		return "https"
	}
	return "http"
}

// close stops every process, reporting those that did not stop cleanly on
// SIGTERM, and dumps their logs if the test failed.
func (c *cluster) close() {
	procs := append(append([]*proc{c.sched}, c.taskManagerProcs()...), c.others...)
	var wg sync.WaitGroup
	for _, p := range procs {
		if p == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !p.stop(15 * time.Second) {
				c.t.Errorf("%s did not stop cleanly on SIGTERM (exit %d)", p.name, p.cmd.ProcessState.ExitCode())
			}
		}()
	}
	wg.Wait()
	c.wg.Wait()
	c.hc.CloseIdleConnections()
	if c.t.Failed() {
		for _, p := range procs {
			if p != nil {
				c.t.Logf("--- %s (%s) stderr:\n%s", p.name, p.id, p.logTail())
			}
		}
	}
}

// freeAddr returns a loopback address with a port that was free a moment
// ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startScheduler starts floe scheduler on free ports and waits until its
// REST API answers. A port taken between choosing and binding it makes the
// scheduler exit; it is then started again on other ports.
func (c *cluster) startScheduler(extra []string) {
	t := c.t
	t.Helper()
	c.schedArgs = extra
	for try := 1; ; try++ {
		rest, rpc := freeAddr(t), freeAddr(t)
		err := c.runScheduler(rest, rpc)
		switch {
		case err == nil:
			return
		case try < 3 && strings.Contains(c.sched.stderr.String(), "address already in use"):
			continue
		}
		t.Fatalf("scheduler did not start: %v\n%s", err, c.sched.logTail())
	}
}

// runScheduler starts floe scheduler on the given addresses, with the
// cluster's data directory, and waits until its REST API answers.
func (c *cluster) runScheduler(rest, rpc string) error {
	args := append([]string{"scheduler", "--rest-addr", rest, "--rpc-addr", rpc,
		"--data-dir", filepath.Join(c.dir, "scheduler"),
		"--heartbeat-interval", heartbeatInterval, "--heartbeat-timeout", heartbeatTimeout}, c.schedArgs...)
	p := startProc(c.t, &c.wg, "scheduler", args...)
	c.sched, c.server, c.rpc = p, c.scheme()+"://"+rest, rpc
	c.client = client.New(c.server, c.hc)
	return c.poll(startTimeout, func() (bool, error) {
		if p.exited() {
			return false, fmt.Errorf("exited with %v", p.cmd.ProcessState)
		}
		resp, err := c.hc.Get(c.server + "/healthz")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

// restartScheduler SIGKILLs the scheduler and starts it again with the
// same ports and data directory.
func (c *cluster) restartScheduler() {
	c.t.Helper()
	old := c.sched
	old.kill()
	c.others = append(c.others, old)
	rest := strings.TrimPrefix(c.server, c.scheme()+"://")
	if err := c.runScheduler(rest, c.rpc); err != nil {
		c.t.Fatalf("scheduler did not start again: %v\n%s", err, c.sched.logTail())
	}
}

// tmAddr matches the line floe taskmanager prints when it serves.
var tmAddr = regexp.MustCompile(`taskmanager: serving on (\S+) with`)

// startTaskManager starts a task manager with slots slots and the extra
// flags, and waits until the scheduler lists it; the returned proc has its
// id and address.
func (c *cluster) startTaskManager(slots int, extra ...string) *proc {
	t := c.t
	t.Helper()
	c.mu.Lock()
	n := len(c.tms) + 1
	c.mu.Unlock()
	name := fmt.Sprintf("taskmanager-%d", n)
	p := startProc(t, &c.wg, name, append([]string{"taskmanager", "--scheduler", c.rpc, "--rpc-addr", "127.0.0.1:0",
		"--slots", fmt.Sprint(slots), "--data-dir", filepath.Join(c.dir, name)}, extra...)...)
	c.mu.Lock()
	c.tms = append(c.tms, p)
	c.mu.Unlock()
	err := c.poll(startTimeout, func() (bool, error) {
		if p.exited() {
			return false, fmt.Errorf("exited with %v", p.cmd.ProcessState)
		}
		m := tmAddr.FindStringSubmatch(p.stdout.String())
		if m == nil {
			return false, nil
		}
		tms, err := c.client.TaskManagers(context.Background())
		if err != nil {
			return false, err
		}
		for _, tm := range tms {
			if tm.Addr == m[1] {
				p.id, p.addr = tm.ID, tm.Addr
				if tm.Slots != slots {
					return false, fmt.Errorf("registered with %d slots, want %d", tm.Slots, slots)
				}
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("%s did not register: %v\n%s", name, err, p.logTail())
	}
	return p
}

func (c *cluster) taskManagerProcs() []*proc {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*proc(nil), c.tms...)
}

// taskManager returns the process of the task manager the scheduler calls
// id.
func (c *cluster) taskManager(id string) *proc {
	c.t.Helper()
	for _, p := range c.taskManagerProcs() {
		if p.id == id {
			return p
		}
	}
	c.t.Fatalf("no task manager process has id %q", id)
	return nil
}

// poll calls cond every 50ms until it returns true or an error, or timeout
// passes.
func (c *cluster) poll(timeout time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		switch {
		case err != nil:
			return err
		case ok:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("not done after %s", timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// floe runs a floe command against the cluster's scheduler, which it finds
// through $FLOE_SERVER, trusting the cluster's CA through $FLOE_TLS_CA when
// it runs TLS.
func (c *cluster) floe(timeout time.Duration, args ...string) result {
	c.t.Helper()
	env := []string{"FLOE_SERVER=" + c.server}
	if c.certs != "" {
		env = append(env, "FLOE_TLS_CA="+filepath.Join(c.certs, "ca.pem"))
	}
	return runFloe(c.t, timeout, env, args...)
}

// jobID matches what floe job submit prints.
var jobID = regexp.MustCompile(`^[0-9a-f]{16}\n$`)

// submit runs floe job submit with args and returns the job's id, which
// must be all it prints.
func (c *cluster) submit(args ...string) string {
	c.t.Helper()
	r := c.floe(time.Minute, append([]string{"job", "submit"}, args...)...)
	if r.code != 0 || !jobID.MatchString(r.stdout) {
		c.t.Fatalf("floe job submit: exit %d, stdout %q, want a job id\n%s", r.code, r.stdout, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

// submitThroughElections submits a job named name like submit, but a
// submission refused as unavailable because leadership moved while it was
// in flight (a loaded machine can miss an election timeout) is looked for
// among the jobs, as it may have committed, and sent again if it did not.
func (c *cluster) submitThroughElections(name string, args ...string) string {
	c.t.Helper()
	for try := 1; ; try++ {
		r := c.floe(time.Minute, append([]string{"job", "submit"}, args...)...)
		if r.code == 0 && jobID.MatchString(r.stdout) {
			return strings.TrimSpace(r.stdout)
		}
		if try == 5 || !strings.Contains(r.stderr, "unavailable") {
			c.t.Fatalf("floe job submit: exit %d, stdout %q, want a job id\n%s", r.code, r.stdout, r.stderr)
		}
		time.Sleep(time.Second)
		if jobs, err := c.client.Jobs(context.Background()); err == nil {
			for _, j := range jobs {
				if j.Name == name {
					return j.ID
				}
			}
		}
	}
}

// wait runs floe job wait and fails the test unless the job finished.
func (c *cluster) wait(id string, timeout time.Duration) {
	c.t.Helper()
	r := c.floe(timeout+30*time.Second, "job", "wait", id, "--timeout", timeout.String(), "--poll", "200ms")
	if r.code != 0 || r.stdout != "FINISHED\n" {
		job, _ := c.client.Job(context.Background(), id)
		c.t.Fatalf("floe job wait %s: exit %d, stdout %q\nstderr: %s\njob: %+v", id, r.code, r.stdout, r.stderr, job)
	}
}

// job returns the job's status from the REST API.
func (c *cluster) job(id string) api.JobStatus {
	c.t.Helper()
	job, err := c.client.Job(context.Background(), id)
	if err != nil {
		c.t.Fatalf("GET job %s: %v", id, err)
	}
	return job
}

// waitJob polls the job until cond holds, failing the test if it ends
// first or timeout passes. It returns the status that satisfied cond.
func (c *cluster) waitJob(id string, timeout time.Duration, what string, cond func(api.JobStatus) bool) api.JobStatus {
	c.t.Helper()
	var job api.JobStatus
	err := c.poll(timeout, func() (bool, error) {
		var err error
		if job, err = c.client.Job(context.Background(), id); err != nil {
			return false, err
		}
		if cond(job) {
			return true, nil
		}
		if api.Terminal(job.State) {
			return false, fmt.Errorf("job ended %s: %s", job.State, job.Message)
		}
		return false, nil
	})
	if err != nil {
		c.t.Fatalf("waiting for job %s to be %s: %v\nlast status: %+v", id, what, err, job)
	}
	return job
}

// taskManagerIDs returns the ids of the task managers the scheduler lists.
func (c *cluster) taskManagerIDs() []string {
	c.t.Helper()
	tms, err := c.client.TaskManagers(context.Background())
	if err != nil {
		c.t.Fatalf("GET /v1/taskmanagers: %v", err)
	}
	var ids []string
	for _, tm := range tms {
		ids = append(ids, tm.ID)
	}
	return ids
}
