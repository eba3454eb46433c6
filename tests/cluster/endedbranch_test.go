package cluster

import (
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// endedBranchSpec unions a short file source with a long one and counts
// the words of both into out, and counts the short one's alone into
// out-short: a graph whose short branch ends seconds before the rest.
const endedBranchSpec = `
name: ended-branch
parallelism: 2
maxParallelism: 128
params:
  rate: "0"
  short-rate: "0"
modules:
  wordcount: wordcount.wasm
sources:
  - {type: file, uid: short, path: "${short}", rate: "${short-rate}", parallelism: 1}
  - {type: file, uid: long, path: "${long}", rate: "${rate}"}
operators:
  - {type: union, uid: all, inputs: [short, long]}
  - {type: flatMap, uid: split, module: wordcount, function: split}
  - {type: keyBy, uid: by-word, key: value}
  - {type: process, uid: count, module: wordcount, function: count}
  - {type: flatMap, uid: split-short, module: wordcount, function: split, input: short}
  - {type: keyBy, uid: by-word-short, key: value}
  - {type: process, uid: count-short, module: wordcount, function: count}
sinks:
  - {type: file, uid: out, path: "${out}", input: count}
  - {type: file, uid: out-short, path: "${out-short}", input: count-short}
restartStrategy: {type: fixedDelay, attempts: 5, delay: 300ms}
`

// TestSIGKILLAfterABranchEndedRestoresALaterCheckpoint runs endedBranchSpec
// in real processes. Once the short branch has ended, checkpoints keep
// completing; a task manager is then SIGKILLed and a fresh one started,
// and the job must restore a checkpoint taken after the short branch
// ended (Flink's FLIP-147 case) and leave each count of both sinks exactly
// once: the short source is not read again, and the short sink's last
// output, held until then for the final commit, is neither lost nor
// written twice.
func TestSIGKILLAfterABranchEndedRestoresALaterCheckpoint(t *testing.T) {
	c := newCluster(t, clusterConfig{taskManagers: 2, slots: 2})
	short, long := newInput(t, 8_000, 31), newInput(t, 300_000, 32)
	all := input{words: short.words + long.words, want: map[string]int64{}}
	for _, in := range []input{short, long} {
		for w, n := range in.want {
			all.want[w] += n
		}
	}
	dir := t.TempDir()
	out, outShort := filepath.Join(dir, "out"), filepath.Join(dir, "out-short")
	spec := writeSpec(t, "ended-branch", endedBranchSpec)
	// A source's rate is shared by its subtasks. short: ~950 lines at 100
	// lines/s, about 10 s, so that it ends after the first checkpoints even
	// when processes are slow to start; long: ~35K lines at 2.5K lines/s,
	// about 14 s.
	id := c.submit(spec, "--set", "short="+short.path, "--set", "long="+long.path, "--set", "out="+out,
		"--set", "out-short="+outShort, "--set", "rate=2500", "--set", "short-rate=100", "--checkpoint-interval", "300ms")

	job := c.waitJob(id, 2*time.Minute, "the short branch ending", func(j api.JobStatus) bool {
		for _, v := range j.Vertices {
			if v.Name == "count-short -> out-short" {
				return allIn(v, api.TaskEnding)
			}
		}
		return false
	})
	if job.Attempt != 1 {
		t.Fatalf("attempt %d before any kill: %s", job.Attempt, job.Message)
	}
	ended := c.latestCompleted(id)
	later := c.waitCheckpointAfter(id, ended+1)
	t.Logf("the short branch ended by checkpoint %d; checkpoint %d completed since", ended, later)

	job = c.job(id)
	if api.Terminal(job.State) {
		t.Fatalf("job ended %s before the kill: %s", job.State, job.Message)
	}
	var victim *proc
	for _, v := range job.Vertices {
		if v.Name == "count -> out" {
			victim = c.taskManager(v.Subtasks[0].TaskManager)
		}
	}
	if victim == nil {
		t.Fatalf("no vertex count -> out in %+v", job.Vertices)
	}
	t.Logf("SIGKILL %s", victim.name)
	victim.kill()
	c.startTaskManager(2)
	c.wait(id, 4*time.Minute)

	job = c.job(id)
	var restored []int64
	for _, e := range job.History {
		if m := restoringRE.FindStringSubmatch(e.Message); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			restored = append(restored, n)
		}
	}
	t.Logf("restored checkpoints %v in %d attempts", restored, job.Attempt)
	if len(restored) == 0 || restored[0] <= ended {
		t.Errorf("restored checkpoints %v, want a first one after %d, which the short branch ended by", restored, ended)
	}
	t.Run("out", func(t *testing.T) { checkEachCountOnce(t, out, all) })
	t.Run("out-short", func(t *testing.T) { checkEachCountOnce(t, outShort, short) })
}

var restoringRE = regexp.MustCompile(`restoring checkpoint (\d+)`)

// latestCompleted returns the id of job id's newest completed checkpoint,
// or 0.
func (c *cluster) latestCompleted(id string) int64 {
	c.t.Helper()
	cps, err := c.client.Checkpoints(context.Background(), id)
	if err != nil {
		c.t.Fatal(err)
	}
	var latest int64
	for _, cp := range cps {
		if cp.Status == api.CheckpointCompleted {
			latest = max(latest, cp.ID)
		}
	}
	return latest
}

// allIn reports whether every subtask of v is in state.
func allIn(v api.VertexStatus, state string) bool {
	for _, s := range v.Subtasks {
		if s.State != state {
			return false
		}
	}
	return len(v.Subtasks) > 0
}
