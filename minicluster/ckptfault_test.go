package minicluster

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/s3server"
	"github.com/floe-stream/floe/tests/textgen"
)

// countStatuses counts a job's checkpoints by status.
func countStatuses(t *testing.T, c *Cluster, id string) map[string]int {
	cps, err := c.Scheduler.Checkpoints(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, cp := range cps {
		n[cp.Status]++
	}
	return n
}

// TestS3OutageFailsCheckpointsNotTheJob stops the S3 server mid-run:
// checkpoints fail and are reported while records keep flowing, and
// complete again once the server is back. The output stays exactly once.
func TestS3OutageFailsCheckpointsNotTheJob(t *testing.T) {
	s3 := s3server.Start(t)
	for _, kv := range s3.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	var text bytes.Buffer
	if err := textgen.Write(&text, 120_000, 5); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "input.txt")
	os.WriteFile(input, text.Bytes(), 0o644)
	out := filepath.Join(dir, "out")
	// ~14K lines at 2.5K lines/s: about 6 s.
	sub := wordcount(t, dir, input, out, "\ncheckpoints: {interval: 200ms, timeout: 2s, storage: s3://"+s3.Bucket+"/outage}\n", 2)
	sub.Params["rate"] = "2500"
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 1 })
	s3.Stop()
	before, _ := c.Scheduler.Job(context.Background(), id)
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointFailed] >= 2 })
	during, _ := c.Scheduler.Job(context.Background(), id)
	if during.State != api.JobRunning || during.Attempt != 1 {
		t.Fatalf("job %s (attempt %d) while S3 was down: %s", during.State, during.Attempt, during.Message)
	}
	if during.Vertices[0].RecordsIn <= before.Vertices[0].RecordsIn {
		t.Errorf("no progress while S3 was down: %d then %d records in", before.Vertices[0].RecordsIn, during.Vertices[0].RecordsIn)
	}
	completed := countStatuses(t, c, id)[api.CheckpointCompleted]
	s3.Restart(t)
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] > completed })
	waitFor(t, func() bool {
		st, _ := c.Scheduler.Job(context.Background(), id)
		return api.Terminal(st.State)
	})
	st, _ := c.Scheduler.Job(context.Background(), id)
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	checkExactlyOnce(t, out, textgen.Count(text.Bytes()))
}

// TestCorruptCheckpointFallsBackToThePreviousOne corrupts the snapshot
// files of the latest checkpoint while the job restarts: the restore fails,
// the job restores the checkpoint before it and still counts every record
// exactly once.
func TestCorruptCheckpointFallsBackToThePreviousOne(t *testing.T) {
	dir := t.TempDir()
	var text bytes.Buffer
	if err := textgen.Write(&text, 150_000, 8); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "input.txt")
	os.WriteFile(input, text.Bytes(), 0o644)
	out := filepath.Join(dir, "out")
	sub := wordcount(t, dir, input, out, "\nrestartStrategy: {type: fixedDelay, attempts: 3, delay: 1500ms}\n", 2)
	sub.Params["rate"] = "4000"
	sub.CheckpointInterval = 200 * time.Millisecond
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2,
		HeartbeatTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 3 })
	st, _ := c.Scheduler.Job(context.Background(), id)
	c.StopTaskManager(map[string]int{"tm-1": 0, "tm-2": 1}[st.Vertices[1].Subtasks[0].TaskManager])
	waitFor(t, func() bool {
		st, _ = c.Scheduler.Job(context.Background(), id)
		return st.State == api.JobRestarting
	})
	// The restart will restore the newest completed checkpoint: corrupt
	// the snapshot files only it refers to.
	cps, _ := c.Scheduler.Checkpoints(context.Background(), id)
	var done []api.CheckpointStatus
	for _, cp := range cps {
		if cp.Status == api.CheckpointCompleted {
			done = append(done, cp)
		}
	}
	latest, previous := readMetadata(t, done[0].Path), readMetadata(t, done[1].Path)
	old := map[string]bool{}
	for _, f := range previous.Files() {
		old[f] = true
	}
	root := strings.TrimSuffix(strings.TrimPrefix(done[0].Path, "file://"), ckmeta.MetadataPath(id, latest.ID))
	corrupted := 0
	for _, f := range latest.Files() {
		if !old[f] {
			b, err := os.ReadFile(filepath.Join(root, f))
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0xff
			os.WriteFile(filepath.Join(root, f), b, 0o644)
			corrupted++
		}
	}
	if corrupted == 0 {
		t.Fatalf("checkpoint %d has no files of its own", latest.ID)
	}
	waitFor(t, func() bool {
		st, _ = c.Scheduler.Job(context.Background(), id)
		return api.Terminal(st.State)
	})
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	cps, _ = c.Scheduler.Checkpoints(context.Background(), id)
	fellBack := false
	for _, cp := range cps {
		fellBack = fellBack || (cp.ID == latest.ID && strings.Contains(cp.Message, "restore failed"))
	}
	if !fellBack {
		t.Errorf("checkpoint %d not reported as failing its restore: %+v", latest.ID, cps)
	}
	checkExactlyOnce(t, out, textgen.Count(text.Bytes()))
}

func readMetadata(t *testing.T, url string) *ckmeta.Metadata {
	t.Helper()
	b, err := os.ReadFile(strings.TrimPrefix(url, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	var md ckmeta.Metadata
	if err := ckmeta.Unmarshal(b, &md); err != nil {
		t.Fatal(err)
	}
	return &md
}
