package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/client"
)

// initCerts writes the cluster's CA and a certificate for each role with
// `floe certs init`, as a user would.
func (c *cluster) initCerts() {
	c.t.Helper()
	c.certs = filepath.Join(c.dir, "certs")
	if r := runFloe(c.t, time.Minute, nil, "certs", "init", c.certs); r.code != 0 {
		c.t.Fatalf("floe certs init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// caPool returns the cluster CA that initCerts wrote.
func (c *cluster) caPool() *x509.CertPool {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.certs, "ca.pem"))
	if err != nil {
		c.t.Fatal(err)
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(b) {
		c.t.Fatalf("no certificate in %s/ca.pem", c.certs)
	}
	return p
}

// TestWordCountWithCheckpointsOverMutualTLS runs the word count with
// checkpoints at parallelism 4 on two task managers, so that records cross
// between processes, with every connection on mutual TLS: task managers
// to the scheduler, the scheduler to them, task manager to task manager,
// and the CLI to the REST API over HTTPS. Each count of each word must be
// committed exactly once; a CLI that does not trust the CA is refused.
func TestWordCountWithCheckpointsOverMutualTLS(t *testing.T) {
	c := newCluster(t, clusterConfig{taskManagers: 2, slots: 2, tls: true})
	if !strings.HasPrefix(c.server, "https://") {
		t.Fatalf("the scheduler serves REST on %s, want https", c.server)
	}
	// About 12,000 lines at 4,000 lines/s: checkpoints every 200 ms
	// complete while the job runs.
	in := newInput(t, 100_000, 16)
	out := filepath.Join(t.TempDir(), "out")
	id := c.submit(wordcountSpec(t, "wordcount-tls", ""), "--tls-ca", filepath.Join(c.certs, "ca.pem"),
		"--set", "input="+in.path, "--set", "output="+out, "--set", "rate=4000",
		"--parallelism", "4", "--checkpoint-interval", "200ms")
	c.waitCheckpointAfter(id, 0)
	c.wait(id, 2*time.Minute)
	checkEachCountOnce(t, out, in)
	checkSpread(t, c.job(id), 4, c.taskManagerIDs())

	// Without the CA, the CLI does not trust the scheduler.
	r := runFloe(t, time.Minute, []string{"FLOE_SERVER=" + c.server, "FLOE_TLS_CA="}, "job", "list")
	if r.code != 1 || !strings.Contains(r.stderr, "--tls-ca") {
		t.Errorf("floe job list without the CA: exit %d, stderr %q; want 1 and a hint at --tls-ca", r.code, r.stderr)
	}
}

// TestGroupOverMutualTLS starts a group of three schedulers with TLS, so
// that Raft runs over mutual TLS between processes, and submits a job
// through a follower over HTTPS: the follower forwards it to the leader
// over HTTPS, and the job, on a task manager with TLS, gives the right
// counts.
func TestGroupOverMutualTLS(t *testing.T) {
	tr := &http.Transport{ExpectContinueTimeout: 5 * time.Second, MaxIdleConnsPerHost: 4}
	c := &cluster{t: t, dir: t.TempDir(), hc: &http.Client{Transport: tr, Timeout: time.Minute}}
	t.Cleanup(c.close)
	c.initCerts()
	tr.TLSClientConfig = &tls.Config{RootCAs: c.caPool()}
	ms := c.startGroup(3)
	c.startTaskManager(2, "--tls-dir", filepath.Join(c.certs, "taskmanager"))
	lead := c.leader(ms)
	f := ms[0]
	if f == lead {
		f = ms[1]
	}
	c.server = "https://" + f.rest
	c.client = client.New(c.server, c.hc)
	// The follower forwards once it has applied the leader's REST address.
	if err := c.poll(startTimeout, func() (bool, error) {
		st, err := c.client.Cluster(context.Background())
		if err != nil || len(st.Members) != 3 {
			return false, nil
		}
		for _, m := range st.Members {
			if !m.Reachable || m.RESTAddr == "" {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		t.Fatalf("the members never all showed reachable through the follower %s: %v", f.p.name, err)
	}
	in := newInput(t, 20_000, 43)
	out := filepath.Join(t.TempDir(), "out")
	id := c.submitThroughElections("group-tls", wordcountSpec(t, "group-tls", ""), "--set", "input="+in.path, "--set", "output="+out)
	c.wait(id, time.Minute)
	in.check(t, out, 1)
}
