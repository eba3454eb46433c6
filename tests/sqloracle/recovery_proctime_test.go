package sqloracle

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/sqlc"
	"github.com/floe-stream/floe/minicluster"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/nexmark"
)

// TestProcTimeWindowSurvivesALostTaskManager runs a checkpointed count
// per auction in 1-second windows of processing time and stops the task
// manager of the window's first subtask after two checkpoints. Restored,
// the open windows come back with their timers from the checkpoint and the
// rows after it are read again into new windows, so, whatever window each
// row lands in, every row is counted exactly once: each auction's counts
// sum to its rows in the input, and every window is aligned to its size.
func TestProcTimeWindowSurvivesALostTaskManager(t *testing.T) {
	dir := t.TempDir()
	bids := filepath.Join(dir, "bids.csv")
	if err := writeBids(bids, 3000); err != nil {
		t.Fatal(err)
	}
	totals := map[int64]int64{} // the brute force: rows per auction
	data, err := os.ReadFile(bids)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		a, _ := strconv.ParseInt(strings.SplitN(line, ",", 2)[0], 10, 64)
		totals[a]++
	}
	out := filepath.Join(dir, "out")
	src := fmt.Sprintf(`SET parallelism = 2;
SET checkpoint_interval = '200ms';
CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, ts BIGINT, p AS PROCTIME())
  WITH (connector = 'file', path = '%s', rate = '1000');
CREATE TABLE out (auction BIGINT, n BIGINT, ws BIGINT, we BIGINT) WITH (connector = 'file', path = '%s');
INSERT INTO out SELECT auction, COUNT(*), window_start, window_end
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(p), INTERVAL '1' SECOND)) GROUP BY auction, window_start, window_end;
`, bids, out)
	job, err := sqlc.Compile(src, sqlc.Options{Name: "proctime"})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := udf.NewEngine(context.Background(), udf.Config{CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close(context.Background()) })
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	c, err := minicluster.Start(context.Background(), minicluster.Config{DataDir: filepath.Join(dir, "cluster"),
		TaskManagers: 2, Slots: 2, HeartbeatTimeout: 2 * time.Second, Engine: engine, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	id, err := c.Scheduler.Submit(context.Background(), api.Submission{Spec: job.Spec})
	if err != nil {
		t.Fatal(err)
	}
	j := &checkpointedJob{c: c, id: id, out: out}
	st := j.waitCheckpoints(t, 2)
	// Vertex 1 is the window's stage: [window -> select -> out].
	victim := st.Vertices[1].Subtasks[0].TaskManager
	c.StopTaskManager(map[string]int{"tm-1": 0, "tm-2": 1}[victim])
	waitFor(t, "the job to end", func() bool {
		st, err = c.Scheduler.Job(context.Background(), id)
		return err == nil && api.Terminal(st.State)
	})
	if st.State != api.JobFinished {
		t.Fatalf("job %s after %d attempts: %s", st.State, st.Attempt, st.Message)
	}
	if st.Attempt < 2 || !historyHas(st, "restoring checkpoint") {
		t.Errorf("attempt %d, no restore in the history: %+v", st.Attempt, st.History)
	}
	var lines []string
	for _, row := range readParts(t, out) {
		lines = append(lines, strings.Join(show(row), ","))
	}
	windows, err := nexmark.CheckQ12(lines, totals, 1000)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rows of %d auctions in %d windows", len(lines), len(totals), windows)
}
