package sqlc

import (
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
)

// TestDistinctCompiles compiles SELECT DISTINCT over a table and over a
// join: each ends in a keyBy on the whole row, a sqlGroup without
// aggregates keyed by all of it, and a changelog, in a spec that parses
// and plans.
func TestDistinctCompiles(t *testing.T) {
	tests := []struct {
		name, query string
		cols        int
	}{
		{"table", "INSERT INTO o SELECT DISTINCT auction, UPPER(channel), auction FROM bids WHERE price > 10;", 2},
		{"join", "INSERT INTO o SELECT DISTINCT a.auction, b.channel, a.bidder FROM bids a JOIN bids b\n" +
			"ON a.auction = b.auction AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '1' SECOND;", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := bidsTable + "CREATE TABLE o (a BIGINT, c VARCHAR, b BIGINT) WITH (connector = 'file', path = '/out');\n" + tt.query
			j, err := Compile(src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			job, err := jobspec.Parse(j.Spec, "/", nil)
			if err != nil {
				t.Fatalf("%v\n%s", err, j.Spec)
			}
			if _, err := plan.Build(job); err != nil {
				t.Fatal(err)
			}
			ops := job.Operators
			n := len(ops)
			if n < 3 || ops[n-3].Type != jobspec.OperatorKeyBy || ops[n-2].Type != jobspec.OperatorSQLGroup || ops[n-1].Type != jobspec.OperatorSQL {
				t.Fatalf("want ... keyBy, sqlGroup, sql\n%s", j.Spec)
			}
			agg := ops[n-2].SQLAggregation
			if agg == nil || agg.Keys != tt.cols || len(agg.Aggs) != 0 {
				t.Errorf("the group: %+v, want %d keys and no aggregate", agg, tt.cols)
			}
			if !ops[n-1].SQL.Changelog {
				t.Errorf("the last program writes no changelog\n%s", j.Spec)
			}
		})
	}
}
