package minicluster

import (
	"bytes"
	"context"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/textgen"
)

// endedBranchSpec is a graph whose short branch ends long before its long
// one: the short source is unioned with the long one and counted into out,
// and also counted on its own into out-short. When short has read its
// file, short and split-short finish, and count-short -> out-short holds
// its last output for the job's final commit (it is ending) while long
// goes on for seconds.
const endedBranchSpec = `
name: ended-branch
parallelism: 2
params:
  rate: "0"
  short-rate: "0"
modules:
  wordcount: wordcount.wasm
sources:
  - {type: file, uid: short, path: "${dir}/short.txt", rate: "${short-rate}", parallelism: 1}
  - {type: file, uid: long, path: "${dir}/long.txt", rate: "${rate}"}
operators:
  - {type: union, uid: all, inputs: [short, long]}
  - {type: flatMap, uid: split, module: wordcount, function: split}
  - {type: keyBy, uid: by-word, key: value}
  - {type: process, uid: count, module: wordcount, function: count}
  - {type: flatMap, uid: split-short, module: wordcount, function: split, input: short}
  - {type: keyBy, uid: by-word-short, key: value}
  - {type: process, uid: count-short, module: wordcount, function: count}
sinks:
  - {type: file, uid: out, path: "${dir}/out", input: count}
  - {type: file, uid: out-short, path: "${dir}/out-short", input: count-short}
restartStrategy: {type: fixedDelay, attempts: 3, delay: 200ms}
`

// TestCheckpointsGoOnAfterABranchEnds runs endedBranchSpec: once the short
// branch has ended, new checkpoints still complete and record it as
// finished; a task manager is then lost, the job restores a checkpoint
// taken after the short branch ended, and both sinks hold every count
// exactly once: the short source was not read again, and the short
// branch's last output, held by its ending sink, was neither lost nor
// written twice.
func TestCheckpointsGoOnAfterABranchEnds(t *testing.T) {
	dir := t.TempDir()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := wasmbuild.Go(filepath.Join(root, "udfs", "wordcount"), dir)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	sub := api.Submission{Spec: []byte(endedBranchSpec), Params: map[string]string{"dir": dir}, Modules: map[string][]byte{"wordcount": mod}}
	texts := map[string][]byte{}
	for name, words := range map[string]int{"short": 5_000, "long": 120_000} {
		var text bytes.Buffer
		if err := textgen.Write(&text, words, uint64(len(name))); err != nil {
			t.Fatal(err)
		}
		texts[name] = text.Bytes()
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), text.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantShort, wantAll := textgen.Count(texts["short"]), textgen.Count(append(slices.Clone(texts["short"]), texts["long"]...))
	// long has ~14K lines over two subtasks at 1.2K lines/s each: about
	// 6 s of input; short has ~600 lines at 400 lines/s, so that it ends
	// after a few checkpoints.
	sub.Params["rate"], sub.Params["short-rate"] = "1200", "400"
	sub.CheckpointInterval = 200 * time.Millisecond
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2,
		HeartbeatTimeout: 2 * time.Second, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}

	// Wait for the short branch to end: its sink's subtasks are ending.
	var ended int64
	waitFor(t, func() bool {
		st, err := c.Scheduler.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if api.Terminal(st.State) || st.Attempt > 1 {
			t.Fatalf("job %s in attempt %d before the short branch ended: %s", st.State, st.Attempt, st.Message)
		}
		for _, v := range st.Vertices {
			if v.Name != "count-short -> out-short" {
				continue
			}
			for _, s := range v.Subtasks {
				if s.State != api.TaskEnding {
					return false
				}
			}
			ended = latestCompleted(t, c, id).ID
			return true
		}
		t.Fatalf("no vertex count-short -> out-short in %+v", st.Vertices)
		return false
	})

	// Two more checkpoints complete; the newest records the short branch
	// as finished, with the ending sink's last output.
	var latest api.CheckpointStatus
	waitFor(t, func() bool {
		latest = latestCompleted(t, c, id)
		return latest.ID >= ended+2
	})
	md := readMetadata(t, latest.Path)
	finished := map[string]int{}
	for _, s := range md.Subtasks {
		if s.Finished {
			finished[md.Stages[s.Stage].Name]++
		}
		if name := md.Stages[s.Stage].Name; name == "count-short -> out-short" && (!s.Finished || s.Sink == nil || len(s.Keyed) > 0) {
			t.Errorf("checkpoint %d: ending sink subtask %d recorded as %+v, want finished with its sink state and no keyed state", md.ID, s.Subtask, s)
		}
	}
	if want := map[string]int{"short": 1, "split-short -> by-word-short": 2, "count-short -> out-short": 2}; !maps.Equal(finished, want) {
		t.Errorf("checkpoint %d records as finished %v, want %v", md.ID, finished, want)
	}

	// Lose a task manager: the job must restore a checkpoint taken after
	// the short branch ended.
	loseTaskManagerMidJob(t, c, id, 0)
	st, err := c.Scheduler.Job(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var restored []int64
	for _, e := range st.History {
		if m := restoringRE.FindStringSubmatch(e.Message); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			restored = append(restored, n)
		}
	}
	t.Logf("the short branch ended after checkpoint %d; checkpoint %d recorded it finished; restored %v", ended, md.ID, restored)
	if ended == 0 {
		t.Errorf("the short branch ended before the first checkpoint: the restore proves nothing")
	}
	if len(restored) == 0 || restored[0] <= ended {
		t.Errorf("restored checkpoints %v, want a first one after %d, taken once the short branch had ended", restored, ended)
	}
	t.Run("out", func(t *testing.T) { checkExactlyOnce(t, filepath.Join(dir, "out"), wantAll) })
	t.Run("out-short", func(t *testing.T) { checkExactlyOnce(t, filepath.Join(dir, "out-short"), wantShort) })
	for _, out := range []string{"out", "out-short"} {
		if hidden, _ := filepath.Glob(filepath.Join(dir, out, ".part-*")); len(hidden) > 0 {
			t.Errorf("uncommitted files left: %v", hidden)
		}
	}
}

var restoringRE = regexp.MustCompile(`restoring checkpoint (\d+)`)

// latestCompleted returns the newest completed checkpoint of job id, or
// the zero status.
func latestCompleted(t *testing.T, c *Cluster, id string) api.CheckpointStatus {
	t.Helper()
	cps, err := c.Scheduler.Checkpoints(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var latest api.CheckpointStatus
	for _, cp := range cps {
		if cp.Status == api.CheckpointCompleted && cp.ID > latest.ID {
			latest = cp
		}
	}
	return latest
}
