package sqloracle

import (
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
)

// TestOverSurvivesALostTaskManager loses, after two completed checkpoints,
// the task manager that runs the first subtask of an OVER aggregate's
// sqlOver (its pending rows, frames and timers in checkpointed keyed
// state): restored from a checkpoint, the job must still write exactly
// DuckDB's rows.
func TestOverSurvivesALostTaskManager(t *testing.T) {
	// NB: vertex 1 is the first stage after a keyBy: the sqlOver.
	startCheckpointed(t, overQuery()).loseTaskManager(t, vertex1)
}

// TestOverRescales rescales an OVER aggregate 2 -> 4 while it runs: its
// pending rows, frames and timers move by key group, and the output is
// still exactly DuckDB's.
func TestOverRescales(t *testing.T) {
	startCheckpointed(t, overQuery()).rescaleTo4(t, func(st api.JobStatus) int { return vertexNamed(t, st, "-over") }, "sqlOver")
}

// overQuery is the OVER aggregate of the recovery tests.
func overQuery() query {
	q := query{
		name: "over",
		sink: "auction BIGINT, ts BIGINT, s BIGINT, a DOUBLE, n BIGINT",
		floe: "INSERT INTO out SELECT auction, ts, " +
			"SUM(price) OVER (PARTITION BY auction ORDER BY ts, bidder, price, channel ROWS BETWEEN 4 PRECEDING AND CURRENT ROW), " +
			"AVG(price) OVER (PARTITION BY auction ORDER BY ts, bidder, price, channel ROWS BETWEEN 4 PRECEDING AND CURRENT ROW), " +
			"COUNT(*) OVER (PARTITION BY auction ORDER BY ts, bidder, price, channel ROWS BETWEEN 7 PRECEDING AND CURRENT ROW) FROM bids;",
	}
	q.duckdb = q.floe[len("INSERT INTO out ") : len(q.floe)-1]
	return q
}
