package sqloracle

import "testing"

// TestWindowTopNAndRetractionsSurviveALostTaskManager loses, after two
// completed checkpoints, the task manager that runs the first subtask of
// a window Top-N's ranking window, and then of a GROUP BY over a GROUP
// BY's retractions: restored from a checkpoint, each must still write
// exactly DuckDB's rows (the second once its changelog is applied).
func TestWindowTopNAndRetractionsSurviveALostTaskManager(t *testing.T) {
	for _, q := range []query{{
		name: "window-topn",
		sink: "channel VARCHAR, ws BIGINT, bidder BIGINT, price BIGINT, rk BIGINT",
		floe: "INSERT INTO out SELECT channel, window_start, bidder, price, rk FROM (SELECT channel, window_start, bidder, price, " +
			"RANK() OVER (PARTITION BY TUMBLE(ts, INTERVAL '5' SECOND), channel ORDER BY price / 100 DESC NULLS LAST) AS rk FROM bids) WHERE rk <= 2;",
		duckdb: "SELECT channel, ws, bidder, price, rk FROM (SELECT channel, ts // 5000 * 5000 AS ws, bidder, price, " +
			"RANK() OVER (PARTITION BY ts // 5000 * 5000, channel ORDER BY price // 100 DESC NULLS LAST) AS rk FROM bids) WHERE rk <= 2",
	}, {
		name:   "group-of-group",
		sink:   "n BIGINT, auctions BIGINT, total BIGINT",
		floe:   "INSERT INTO out SELECT n, COUNT(*), SUM(n) FROM (SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction) GROUP BY n;",
		duckdb: "SELECT n, COUNT(*), SUM(n) FROM (SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction) GROUP BY n",
		key:    []int{0},
	}} {
		t.Run(q.name, func(t *testing.T) {
			// NB: vertex 1 is the ranking window, or the inner GROUP BY.
			startCheckpointed(t, q).loseTaskManager(t, vertex1)
		})
	}
}
