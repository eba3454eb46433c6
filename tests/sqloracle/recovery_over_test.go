package sqloracle

import (
	"context"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
)

// TestOverSurvivesALostTaskManager loses, after two completed checkpoints,
// the task manager that runs the first subtask of an OVER aggregate's
// sqlOver (its pending rows, frames and timers in checkpointed keyed
// state): restored from a checkpoint, the job must still write exactly
// DuckDB's rows.
func TestOverSurvivesALostTaskManager(t *testing.T) {
	j := startCheckpointed(t, overQuery())
	st := j.waitCheckpoints(t, 2)
	// NB: vertex 1 is the first stage after a keyBy: the sqlOver.
	victim := st.Vertices[1].Subtasks[0].TaskManager
	j.c.StopTaskManager(map[string]int{"tm-1": 0, "tm-2": 1}[victim])
	st = j.finish(t)
	if st.Attempt < 2 || !historyHas(st, "restoring checkpoint") {
		t.Errorf("attempt %d, no restore in the history: %+v", st.Attempt, st.History)
	}
}

// TestOverRescales rescales an OVER aggregate 2 -> 4 while it runs: its
// pending rows, frames and timers move by key group, and the output is
// still exactly DuckDB's.
func TestOverRescales(t *testing.T) {
	j := startCheckpointed(t, overQuery())
	j.waitCheckpoints(t, 1)
	if err := j.c.Scheduler.Rescale(context.Background(), j.id, api.RescaleRequest{Parallelism: 4}); err != nil {
		t.Fatal(err)
	}
	st := j.finish(t)
	if !historyHas(st, "rescaled to ") {
		t.Errorf("no rescale in the history: %+v", st.History)
	}
	if n := len(st.Vertices[vertexNamed(t, st, "-over")].Subtasks); n != 4 {
		t.Errorf("the sqlOver runs %d subtasks, want 4", n)
	}
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
