package sqloracle

import (
	"context"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
)

// wasmWindowQuery is a checkpointed TUMBLE window of udfs/sqlfns's Wasm
// aggregates next to a built-in one, and DuckDB's.
var wasmWindowQuery = query{name: "wasm-window", wasm: true,
	sink: "auction BIGINT, ws BIGINT, s BIGINT, a BIGINT, n BIGINT",
	floe: "INSERT INTO out SELECT auction, window_start, spread(price), count_above(price, 500), COUNT(*) " +
		"FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '5' SECOND);",
	duckdb: "SELECT auction, ts // 5000 * 5000 AS ws, MAX(price) - MIN(price), COUNT(CASE WHEN price > 500 THEN 1 END), COUNT(*) " +
		"FROM bids GROUP BY auction, ws"}

// TestWasmAggregatesSurviveALostTaskManager runs Wasm aggregates of
// udfs/sqlfns (their accumulators the module's bytes, in the operators'
// keyed state) in a TUMBLE window and in an updating GROUP BY, checkpointed,
// and stops the task manager of the aggregating stage's first subtask
// after two checkpoints: restored, each must still write exactly DuckDB's
// rows (the updating one once its changelog is applied).
func TestWasmAggregatesSurviveALostTaskManager(t *testing.T) {
	for _, q := range []query{
		wasmWindowQuery,
		{name: "wasm-updating", wasm: true, key: []int{0},
			sink:   "auction BIGINT, s BIGINT, a BIGINT",
			floe:   "INSERT INTO out SELECT auction, spread(price), count_above(price, bidder * 10) FROM bids GROUP BY auction;",
			duckdb: "SELECT auction, MAX(price) - MIN(price), COUNT(CASE WHEN price > bidder * 10 THEN 1 END) FROM bids GROUP BY auction"},
	} {
		t.Run(q.name, func(t *testing.T) {
			j := startCheckpointed(t, q)
			st := j.waitCheckpoints(t, 2)
			// Vertex 1 is the aggregating stage: [window or group -> select -> out].
			victim := st.Vertices[1].Subtasks[0].TaskManager
			j.c.StopTaskManager(map[string]int{"tm-1": 0, "tm-2": 1}[victim])
			st = j.finish(t)
			if st.Attempt < 2 || !historyHas(st, "restoring checkpoint") {
				t.Errorf("attempt %d, no restore in the history: %+v", st.Attempt, st.History)
			}
		})
	}
}

// TestWasmAggregatesRescale rescales the Wasm aggregates' window 2 -> 4
// while it runs: their accumulators move by key group with the window's
// state, and the output is still exactly DuckDB's.
func TestWasmAggregatesRescale(t *testing.T) {
	j := startCheckpointed(t, wasmWindowQuery)
	j.waitCheckpoints(t, 1)
	if err := j.c.Scheduler.Rescale(context.Background(), j.id, api.RescaleRequest{Parallelism: 4}); err != nil {
		t.Fatal(err)
	}
	st := j.finish(t)
	if !historyHas(st, "rescaled to ") {
		t.Errorf("no rescale in the history: %+v", st.History)
	}
	if n := len(st.Vertices[1].Subtasks); n != 4 {
		t.Errorf("the window runs %d subtasks, want 4", n)
	}
}
