package minicluster

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// TestWindowsAcrossFailureAndRescale runs q5 and q7 with checkpoints on a
// rate-limited source; one run loses a task manager mid-way, another is
// rescaled 2 → 4 → 1 while running. Their committed output must equal the
// brute-force results: no window lost or fired twice, no timer either.
func TestWindowsAcrossFailureAndRescale(t *testing.T) {
	dir := t.TempDir()
	mod := nexmarkModule(t, dir)
	// 24K bids at 6K/s: about 4 s of input.
	input, queries := bidsAndQueries(t, dir, 24_000)
	spec := func(q windowQuery) string {
		return strings.Replace(nexmarkOverFile(q.operators), "  parallelism: 1\n", "  parallelism: 1\n  rate: 6000\n", 1) +
			"restartStrategy: {type: fixedDelay, attempts: 3, delay: 200ms}\n"
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	for _, q := range queries {
		for _, fault := range []string{"lost-task-manager", "rescale"} {
			t.Run(q.name+"-"+fault, func(t *testing.T) {
				c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster-"+q.name+fault),
					TaskManagers: 2, Slots: 6, HeartbeatTimeout: 2 * time.Second, Logger: log})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				out := filepath.Join(dir, "out-"+q.name+fault)
				id, err := c.Scheduler.Submit(context.Background(), api.Submission{
					Spec:               []byte(spec(q)),
					Params:             map[string]string{"input": input, "output": out},
					Modules:            map[string][]byte{"nexmark": mod},
					CheckpointInterval: 200 * time.Millisecond,
				})
				if err != nil {
					t.Fatal(err)
				}
				waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 2 })
				switch fault {
				case "lost-task-manager":
					st, _ := c.Scheduler.Job(context.Background(), id)
					victim := st.Vertices[len(st.Vertices)-1].Subtasks[0].TaskManager
					c.StopTaskManager(map[string]int{"tm-1": 0, "tm-2": 1}[victim])
				case "rescale":
					for _, p := range []int{4, 1} {
						before := countStatuses(t, c, id)[api.CheckpointCompleted]
						if err := c.Scheduler.Rescale(context.Background(), id, api.RescaleRequest{Parallelism: p}); err != nil {
							t.Fatal(err)
						}
						waitFor(t, func() bool {
							st, _ := c.Scheduler.Job(context.Background(), id)
							return api.Terminal(st.State) || countStatuses(t, c, id)[api.CheckpointCompleted] > before+1
						})
					}
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
				checkLines(t, out, q.want)
			})
		}
	}
}
