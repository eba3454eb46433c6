package sqloracle

import "testing"

// TestOverSurvivesALostTaskManager loses, after two completed checkpoints,
// the task manager that runs the first subtask of an OVER aggregate's
// sqlOver (its pending rows, frames and timers in checkpointed keyed
// state): restored from a checkpoint, the job must still write exactly
// DuckDB's rows.
func TestOverSurvivesALostTaskManager(t *testing.T) {
	q := query{
		name: "over",
		sink: "auction BIGINT, ts BIGINT, s BIGINT, a DOUBLE, n BIGINT",
		floe: "INSERT INTO out SELECT auction, ts, " +
			"SUM(price) OVER (PARTITION BY auction ORDER BY ts, bidder, price, channel ROWS BETWEEN 4 PRECEDING AND CURRENT ROW), " +
			"AVG(price) OVER (PARTITION BY auction ORDER BY ts, bidder, price, channel ROWS BETWEEN 4 PRECEDING AND CURRENT ROW), " +
			"COUNT(*) OVER (PARTITION BY auction ORDER BY ts, bidder, price, channel ROWS BETWEEN 7 PRECEDING AND CURRENT ROW) FROM bids;",
	}
	q.duckdb = q.floe[len("INSERT INTO out "):len(q.floe)-1]
	j := startCheckpointed(t, q)
	st := j.waitCheckpoints(t, 2)
	// NB: vertex 1 is the first stage after a keyBy: the sqlOver.
	victim := st.Vertices[1].Subtasks[0].TaskManager
	j.c.StopTaskManager(map[string]int{"tm-1": 0, "tm-2": 1}[victim])
	st = j.finish(t)
	if st.Attempt < 2 || !historyHas(st, "restoring checkpoint") {
		t.Errorf("attempt %d, no restore in the history: %+v", st.Attempt, st.History)
	}
}
