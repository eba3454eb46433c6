package cluster

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/s3server"
)

// TestExactlyOnceAcrossTaskManagerKills runs word count over 2M words with
// checkpoints every 500 ms to a real S3 server, SIGKILLs a task manager
// that runs part of the job at two random moments and starts a fresh one
// each time. The committed output must hold, for every word, each count
// 1..n exactly once, n being the word's true count.
func TestExactlyOnceAcrossTaskManagerKills(t *testing.T) {
	s3 := s3server.Start(t)
	for _, kv := range s3.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	c := newCluster(t, clusterConfig{taskManagers: 2, slots: 2,
		schedulerArgs: []string{"--checkpoint-storage", "s3://" + s3.Bucket + "/floe"}})
	in := newInput(t, 2_000_000, 21)
	out := filepath.Join(t.TempDir(), "out")
	spec := wordcountSpec(t, "exactly-once", "\nrestartStrategy: {type: fixedDelay, attempts: 10, delay: 500ms}\n")
	// About 235K lines at 12K lines/s: the job runs ~20 s undisturbed.
	id := c.submit(spec, "--set", "input="+in.path, "--set", "output="+out, "--set", "rate=12000",
		"--parallelism", "2", "--checkpoint-interval", "500ms")
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill schedule seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	var after int64
	for kill := 1; kill <= 2; kill++ {
		after = c.waitCheckpointAfter(id, after)
		time.Sleep(time.Duration(500+r.IntN(2500)) * time.Millisecond)
		job := c.job(id)
		if api.Terminal(job.State) {
			t.Fatalf("job ended %s before kill %d: %s", job.State, kill, job.Message)
		}
		victim := job.Vertices[r.IntN(len(job.Vertices))].Subtasks[0].TaskManager
		p := c.taskManager(victim)
		t.Logf("kill %d: SIGKILL %s (%s) with the job %s, attempt %d", kill, p.name, victim, job.State, job.Attempt)
		p.kill()
		c.startTaskManager(2)
	}
	c.wait(id, 4*time.Minute)
	job := c.job(id)
	if job.Attempt < 3 {
		t.Errorf("attempt %d at the end, want at least 3 after two kills", job.Attempt)
	}
	checkEachCountOnce(t, out, in)
}

// waitCheckpointAfter waits for a completed checkpoint with an id above
// after and returns its id.
func (c *cluster) waitCheckpointAfter(id string, after int64) int64 {
	c.t.Helper()
	var got int64
	err := c.poll(2*time.Minute, func() (bool, error) {
		cps, err := c.client.Checkpoints(context.Background(), id)
		if err != nil {
			return false, err
		}
		for _, cp := range cps {
			if cp.Status == api.CheckpointCompleted && cp.ID > after {
				got = cp.ID
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		c.t.Fatalf("no checkpoint after %d completed: %v", after, err)
	}
	return got
}

// checkEachCountOnce checks that for every word each count 1..n appears
// exactly once in the committed part files in dir (checkExactlyOnce), and
// that no uncommitted part file is left behind.
func checkEachCountOnce(t *testing.T, dir string, in input) {
	t.Helper()
	checkExactlyOnce(t, dir, in)
	hidden, _ := filepath.Glob(filepath.Join(dir, ".part-*"))
	if len(hidden) > 0 {
		t.Errorf("uncommitted files left behind: %v", hidden)
	}
}
