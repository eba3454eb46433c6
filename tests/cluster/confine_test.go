package cluster

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTokensConfineJobsToTheDataDirectory checks the secure default of a
// protected scheduler: started with --auth-tokens and no --allowed-paths,
// it refuses a job whose input lies outside its data directory, naming the
// field and the directory jobs may use, even for an operator.
func TestTokensConfineJobsToTheDataDirectory(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens")
	r := runFloe(t, time.Minute, nil, "token", "create", "olga", "--role", "operator", "--file", tokens)
	if r.code != 0 {
		t.Fatalf("floe token create: %+v", r)
	}
	token := strings.TrimSpace(r.stdout)
	c := newCluster(t, clusterConfig{schedulerArgs: []string{"--auth-tokens", tokens}})
	in := newInput(t, 1000, 3)
	out := filepath.Join(t.TempDir(), "out")
	r = runFloe(t, time.Minute, []string{"FLOE_SERVER=" + c.server, "FLOE_TOKEN=" + token},
		"job", "submit", wordcountSpec(t, "confined", ""), "--set", "input="+in.path, "--set", "output="+out)
	dataDir := filepath.Join(c.dir, "scheduler")
	if r.code == 0 || !strings.Contains(r.stderr, "source.path") || !strings.Contains(r.stderr, "outside the allowed paths") ||
		!strings.Contains(r.stderr, dataDir) {
		t.Fatalf("floe job submit of an input outside the data directory: exit %d, stdout %q, stderr %q; want a refusal naming source.path and %s",
			r.code, r.stdout, r.stderr, dataDir)
	}
}
