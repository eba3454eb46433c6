package sqloracle

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/sqlc"
	"github.com/floe-stream/floe/minicluster"
	"github.com/floe-stream/floe/scheduler/api"
)

// TestWindowedSQLSurvivesALostTaskManager runs a checkpointed SQL job with
// a tumbling window on two task managers, stops the one that runs the
// window's first subtask after two completed checkpoints, and checks that
// the job finishes from a checkpoint with exactly DuckDB's rows: no window
// lost, none written twice.
func TestWindowedSQLSurvivesALostTaskManager(t *testing.T) {
	if _, err := os.Stat(filepath.Join("node_modules", "@duckdb", "node-api")); err != nil {
		t.Skip("DuckDB, the oracle, is not installed: run `npm ci --prefix tests/sqloracle` (Node 20 and the npm registry)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on the PATH: the oracle runs DuckDB under Node")
	}
	dir := t.TempDir()
	bids := filepath.Join(dir, "bids.csv")
	if err := writeBids(bids, 3000); err != nil {
		t.Fatal(err)
	}
	q := query{
		name: "recovery",
		sink: "auction BIGINT, ws BIGINT, n BIGINT, total BIGINT, bidders BIGINT",
		duckdb: "SELECT auction, ts // 5000 * 5000 AS ws, COUNT(*), SUM(price), COUNT(DISTINCT bidder) " +
			"FROM bids GROUP BY auction, ws",
	}
	want, ok := runDuckDB(t, node, bids, []query{q}).get(q.name)
	if !ok {
		t.Fatal("DuckDB failed")
	}
	out := filepath.Join(dir, "out")
	// 3000 rows at 1000 rows/s: the job runs about 3 s, checkpointing
	// every 200 ms.
	src := fmt.Sprintf(`SET parallelism = 2;
SET checkpoint_interval = '200ms';
CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, ts BIGINT)
  WITH (connector = 'file', path = '%s', rate = '1000', watermark = 'ts - 1s');
CREATE TABLE out (%s) WITH (connector = 'file', path = '%s');
INSERT INTO out SELECT auction, window_start, COUNT(*), SUM(price), COUNT(DISTINCT bidder)
FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '5' SECOND);
`, bids, q.sink, out)
	job, err := sqlc.Compile(src, sqlc.Options{Name: "recovery"})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := udf.NewEngine(context.Background(), udf.Config{CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close(context.Background())
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	c, err := minicluster.Start(context.Background(), minicluster.Config{DataDir: filepath.Join(dir, "cluster"),
		TaskManagers: 2, Slots: 2, HeartbeatTimeout: 2 * time.Second, Engine: engine, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	id, err := c.Scheduler.Submit(ctx, api.Submission{Spec: job.Spec})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "two completed checkpoints", func() bool {
		cps, err := c.Scheduler.Checkpoints(ctx, id)
		n := 0
		for _, cp := range cps {
			if cp.Status == api.CheckpointCompleted {
				n++
			}
		}
		return err == nil && n >= 2
	})
	st, err := c.Scheduler.Job(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if api.Terminal(st.State) {
		t.Fatalf("the job ended (%s) before a task manager could be lost", st.State)
	}
	// Vertex 1 is the window's stage: [window -> select -> out].
	victim := st.Vertices[1].Subtasks[0].TaskManager
	c.StopTaskManager(map[string]int{"tm-1": 0, "tm-2": 1}[victim])
	waitFor(t, "the job to end", func() bool {
		st, err = c.Scheduler.Job(ctx, id)
		return err == nil && api.Terminal(st.State)
	})
	if st.State != api.JobFinished || st.Attempt < 2 {
		t.Fatalf("job %s after %d attempts: %s", st.State, st.Attempt, st.Message)
	}
	restored := false
	for _, e := range st.History {
		restored = restored || strings.Contains(e.Message, "restoring checkpoint")
	}
	if !restored {
		t.Errorf("no restore in the history: %+v", st.History)
	}
	types := sinkTypes(t, q.sink)
	compareRows(t, normalize(t, readParts(t, out), types), normalize(t, want, types))
}

// waitFor polls cond until it holds, failing the test after 2 minutes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 2 minutes for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
