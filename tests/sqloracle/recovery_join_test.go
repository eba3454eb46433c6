package sqloracle

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
)

// The checkpointed join and Top-N, over bids read twice (startCheckpointed
// declares bids only).
var (
	joinQuery = query{
		name: "checkpointed-join",
		sink: "auction BIGINT, b1 BIGINT, b2 BIGINT, d BIGINT",
		floe: "INSERT INTO out SELECT a.auction, a.bidder, b.bidder, b.ts - a.ts FROM bids a JOIN bids b " +
			"ON a.auction = b.auction AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts + INTERVAL '1' SECOND WHERE a.bidder < b.bidder;",
		duckdb: "SELECT a.auction, a.bidder, b.bidder, b.ts - a.ts FROM bids a JOIN bids b " +
			"ON a.auction = b.auction AND b.ts BETWEEN a.ts - 1000 AND a.ts + 1000 WHERE a.bidder < b.bidder",
	}
	// outerJoinQuery is a regular LEFT JOIN: its changelog of inserts and
	// deletes is applied (key marks it updating), and the matched marks
	// of its buffered rows must survive the restore.
	outerJoinQuery = query{
		name: "checkpointed-outer-join",
		sink: "auction BIGINT, b1 BIGINT, b2 BIGINT, d BIGINT",
		floe: "SET state_ttl = '400ms';\nINSERT INTO out SELECT a.auction, a.bidder, b.bidder, b.ts - a.ts FROM bids a LEFT JOIN bids b " +
			"ON b.auction = a.auction + 1 WHERE a.price > 300;",
		duckdb: "SELECT a.auction, a.bidder, b.bidder, b.ts - a.ts FROM bids a LEFT JOIN bids b " +
			"ON b.auction = a.auction + 1 AND abs(b.ts - a.ts) <= 400 WHERE a.price > 300",
		key: []int{0},
	}
	topNQuery = query{
		name: "checkpointed-topn",
		sink: "auction BIGINT, price BIGINT, bidder BIGINT, rn BIGINT",
		floe: "INSERT INTO out SELECT auction, price, bidder, rn FROM (SELECT auction, price, bidder, " +
			"ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC NULLS LAST, ts, bidder) AS rn FROM bids) WHERE rn <= 5;",
		duckdb: "SELECT auction, price, bidder, rn FROM (SELECT auction, price, bidder, " +
			"ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC NULLS LAST, ts, bidder) AS rn FROM bids) WHERE rn <= 5",
		key: []int{0, 3},
	}
)

// vertexNamed returns the index of the vertex whose name holds part.
func vertexNamed(t *testing.T, st api.JobStatus, part string) int {
	for i, v := range st.Vertices {
		if strings.Contains(v.Name, part) {
			return i
		}
	}
	t.Fatalf("no vertex named *%s* among %+v", part, st.Vertices)
	return -1
}

// TestSQLJoinAndTopNSurviveALostTaskManager stops the task manager that
// runs the first subtask of the join (or the ranking) after two completed
// checkpoints: restored, the buffered rows (or ranked rows) go on from
// keyed state, and the committed output is exactly DuckDB's.
func TestSQLJoinAndTopNSurviveALostTaskManager(t *testing.T) {
	for _, tc := range []struct {
		q      query
		vertex string
	}{{joinQuery, "-join"}, {outerJoinQuery, "-join"}, {topNQuery, "-topn"}} {
		t.Run(tc.q.name, func(t *testing.T) {
			startCheckpointed(t, tc.q).loseTaskManager(t, func(st api.JobStatus) int { return vertexNamed(t, st, tc.vertex) })
		})
	}
}

// TestSQLJoinRescales rescales the join (and a regular LEFT JOIN, whose
// buffered rows carry their matched marks) 2 -> 4 while it runs: both
// sides' buffered rows move by key group and the output is still exactly
// DuckDB's.
func TestSQLJoinRescales(t *testing.T) {
	for _, q := range []query{joinQuery, outerJoinQuery} {
		t.Run(q.name, func(t *testing.T) {
			startCheckpointed(t, q).rescaleTo4(t, func(st api.JobStatus) int { return vertexNamed(t, st, "-join") }, "join")
		})
	}
}
