package sqloracle

import "testing"

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
			startCheckpointed(t, q).loseTaskManager(t, vertex1)
		})
	}
}

// TestWasmAggregatesRescale rescales the Wasm aggregates' window 2 -> 4
// while it runs: their accumulators move by key group with the window's
// state, and the output is still exactly DuckDB's.
func TestWasmAggregatesRescale(t *testing.T) {
	startCheckpointed(t, wasmWindowQuery).rescaleTo4(t, vertex1, "window")
}
