package minicluster

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/nexmark"
)

// TestNexmarkQ10BucketsExactlyOnce runs udfs/nexmark/q10.yaml, which logs
// every bid into the file sink's buckets of its event time's date and
// minute, at parallelism 2: once without checkpoints, and once with
// checkpoints while a task manager is lost mid-way. Every bid must be in
// the bucket its event time names, exactly once, as tests/nexmark's brute
// force computes from the same generated events; no uncommitted file may
// be left behind.
func TestNexmarkQ10BucketsExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	mod := nexmarkModule(t, dir)
	// 40K events at 200 per second of event time span 200 s, about four
	// minute buckets; paced at 8K events/s the job runs about 5 s.
	const events, perSecond = 40_000, 200
	parsed, err := nexmark.Parse(nexmark.Generate(events, perSecond, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := nexmark.Q10(parsed)
	if len(want) < 3 {
		t.Fatalf("the reference has %d buckets: the test would prove little", len(want))
	}
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile(filepath.Join(root, "udfs", "nexmark", "q10.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec = append(spec, "restartStrategy: {type: fixedDelay, attempts: 3, delay: 200ms}\n"...)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	for _, fault := range []string{"none", "lost-task-manager"} {
		t.Run(fault, func(t *testing.T) {
			c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster-"+fault),
				TaskManagers: 2, Slots: 4, HeartbeatTimeout: 2 * time.Second, Logger: log})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			out := filepath.Join(dir, "out-"+fault)
			sub := api.Submission{
				Spec: spec,
				Params: map[string]string{"events": strconv.Itoa(events), "eventsPerSecond": strconv.Itoa(perSecond),
					"rate": "8000", "output": out},
				Modules: map[string][]byte{"nexmark": mod},
			}
			if fault != "none" {
				sub.CheckpointInterval = 200 * time.Millisecond
			}
			id, err := c.Scheduler.Submit(context.Background(), sub)
			if err != nil {
				t.Fatal(err)
			}
			if fault == "lost-task-manager" {
				waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 2 })
				st, _ := c.Scheduler.Job(context.Background(), id)
				victim := st.Vertices[len(st.Vertices)-1].Subtasks[0].TaskManager
				c.StopTaskManager(map[string]int{"tm-1": 0, "tm-2": 1}[victim])
			}
			var st api.JobStatus
			waitFor(t, func() bool {
				st, _ = c.Scheduler.Job(context.Background(), id)
				return api.Terminal(st.State)
			})
			if st.State != api.JobFinished {
				t.Fatalf("job %s: %s", st.State, st.Message)
			}
			if fault == "lost-task-manager" && st.Attempt < 2 {
				t.Errorf("the job finished in attempt %d: the lost task manager did not fail it", st.Attempt)
			}
			checkBuckets(t, out, want)
		})
	}
}

// checkBuckets compares the lines of the part files below dir, by the
// directory that holds them, with want, and fails on any file left
// uncommitted (a name starting with a dot).
func checkBuckets(t *testing.T, dir string, want map[string][]string) {
	t.Helper()
	got := map[string][]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !strings.HasPrefix(d.Name(), "part-") {
			t.Errorf("unexpected file %s", path)
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		bucket, _ := filepath.Rel(dir, filepath.Dir(path))
		got[bucket] = append(got[bucket], strings.Fields(string(b))...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for bucket, lines := range got {
		slices.Sort(lines)
		if _, ok := want[bucket]; !ok {
			t.Errorf("bucket %s should not exist; it holds %d lines", bucket, len(lines))
		}
	}
	for bucket, lines := range want {
		if !slices.Equal(got[bucket], lines) {
			t.Errorf("bucket %s: %d lines, want %d; first difference: %s",
				bucket, len(got[bucket]), len(lines), firstDifference(got[bucket], lines))
		}
	}
}
