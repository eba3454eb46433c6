package cluster

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
