package cluster

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
)

// TestFollowerForwardsWrites starts a group of three schedulers and gives
// the CLI only a follower's REST address: the follower forwards writes to
// the leader. A job submitted through it (a multipart upload) runs and
// finishes with the right counts; a second one, cancelled through it, is
// cancelled; GET /v1/cluster through it shows every member reachable,
// with its applied index.
func TestFollowerForwardsWrites(t *testing.T) {
	tr := &http.Transport{ExpectContinueTimeout: 5 * time.Second, MaxIdleConnsPerHost: 4}
	c := &cluster{t: t, dir: t.TempDir(), hc: &http.Client{Transport: tr, Timeout: time.Minute}}
	t.Cleanup(c.close)
	ms := c.startGroup(3)
	c.startTaskManager(2)
	lead := c.leader(ms)
	var f *member
	for _, m := range ms {
		if m != lead {
			f = m
			break
		}
	}
	c.server = "http://" + f.rest
	c.client = client.New(c.server, c.hc)
	// The follower forwards once it has applied the members' addresses;
	// GET /v1/cluster through it shows them all reachable by then.
	var st api.ClusterStatus
	if err := c.poll(startTimeout, func() (bool, error) {
		var err error
		st, err = c.client.Cluster(context.Background())
		if err != nil || len(st.Members) != 3 {
			return false, nil
		}
		for _, m := range st.Members {
			if !m.Reachable || m.Applied == 0 || m.RESTAddr == "" {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		t.Fatalf("GET /v1/cluster through the follower %s never showed every member reachable: %+v", f.p.name, st)
	}
	t.Logf("submitting through the follower %s; %s leads", f.p.name, lead.p.name)

	in := newInput(t, 20_000, 41)
	out := filepath.Join(t.TempDir(), "out")
	spec := wordcountSpec(t, "follower-forwards", "")
	id := c.submitThroughElections("follower-forwards", spec, "--set", "input="+in.path, "--set", "output="+out)
	c.wait(id, 2*time.Minute)
	in.check(t, out, 1)

	slow := newInput(t, 1_000_000, 42)
	id = c.submit(spec, "--set", "input="+slow.path, "--set", "output="+filepath.Join(t.TempDir(), "slow"), "--set", "rate=1000")
	c.waitJob(id, time.Minute, "running", func(j api.JobStatus) bool { return j.State == api.JobRunning })
	r := c.floe(time.Minute, "job", "cancel", id)
	if r.code != 0 {
		t.Fatalf("floe job cancel through a follower: exit %d, stderr %q", r.code, r.stderr)
	}
	if err := c.poll(30*time.Second, func() (bool, error) {
		j, err := c.client.Job(context.Background(), id)
		return err == nil && j.State == api.JobCanceled, nil
	}); err != nil {
		t.Errorf("job %s not CANCELED after a cancel through a follower: %+v", id, c.job(id))
	}
	if lead.p.exited() || c.leader(ms) != lead {
		t.Errorf("the leader changed during the test; the follower may have served the writes itself")
	}
	if strings.Contains(f.p.logTail(), "panic") {
		t.Errorf("the follower logged a panic:\n%s", f.p.logTail())
	}
}
