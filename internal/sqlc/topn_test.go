package sqlc

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
)

// TestTopNCompiles compiles a Top-N: its ranking keys, sort keys and N
// reach the sqlTopN operator of a spec that parses and plans.
func TestTopNCompiles(t *testing.T) {
	src := bidsTable + `CREATE TABLE o (auction BIGINT, price BIGINT, rn BIGINT) WITH (connector = 'file', path = '/out');
INSERT INTO o SELECT auction, price, rn FROM (
  SELECT auction, price, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC NULLS LAST, ts) AS rn FROM bids
) AS t WHERE t.rn < 4 AND price > 10;
`
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
	if len(job.Operators) != 4 || job.Operators[2].Type != jobspec.OperatorSQLTopN {
		t.Fatalf("want sql, keyBy, sqlTopN, sql\n%s", j.Spec)
	}
	r := job.Operators[2].SQLTopN
	if r.N != 3 || r.Keys != 1 || len(r.Order) != 2 || !r.Order[0].Desc || r.Order[0].NullsFirst || r.Order[1].Desc || r.Order[1].NullsFirst {
		t.Errorf("ranking %+v, want the first 3 per auction, by price descending with NULLs last, then ts", r)
	}
	if last := job.Operators[3].SQL; !last.Changelog || last.Where == nil {
		t.Errorf("the last program: changelog %v, where %v; want a changelog filtered by price > 10", last.Changelog, last.Where)
	}
}

func TestTopNErrors(t *testing.T) {
	head := bidsTable + "CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\n"
	tests := []struct{ name, query, want string }{
		{"no bound", "INSERT INTO o SELECT auction FROM (SELECT auction, ROW_NUMBER() OVER (ORDER BY ts) AS rn FROM bids) WHERE auction > 1;",
			"line 4, column 115: a Top-N needs WHERE rn <= N"},
		{"no where", "INSERT INTO o SELECT auction FROM (SELECT auction, ROW_NUMBER() OVER (ORDER BY ts) AS rn FROM bids);",
			"line 4, column 43: a Top-N needs WHERE rn <= N"},
		{"rank equals 2", "INSERT INTO o SELECT auction FROM (SELECT auction, ROW_NUMBER() OVER (ORDER BY ts) AS rn FROM bids) WHERE rn = 2;",
			"line 4, column 110: rn = 2: only rn = 1 (or <= N) is supported"},
		{"no row_number", "INSERT INTO o SELECT auction FROM (SELECT auction FROM bids) WHERE auction = 1;",
			"line 4, column 43: a subquery is only supported for Top-N"},
		{"no alias", "INSERT INTO o SELECT auction FROM (SELECT auction, ROW_NUMBER() OVER (ORDER BY ts) FROM bids) WHERE auction = 1;",
			"line 4, column 52: write ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) AS rn"},
		{"no order", "INSERT INTO o SELECT auction FROM (SELECT auction, ROW_NUMBER() OVER (PARTITION BY bidder) AS rn FROM bids) WHERE rn = 1;",
			"line 4, column 70: a Top-N needs ORDER BY in its OVER (...)"},
		{"unknown column", "INSERT INTO o SELECT bidder FROM (SELECT auction, ROW_NUMBER() OVER (ORDER BY ts) AS rn FROM bids) WHERE rn = 1;",
			`line 4, column 22: unknown column "bidder": the subquery's SELECT list names [auction] and rn`},
		{"keeps nothing", "INSERT INTO o SELECT auction FROM (SELECT auction, ROW_NUMBER() OVER (ORDER BY ts) AS rn FROM bids) WHERE rn < 1;",
			"line 4, column 110: the rank bound keeps no row"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(head+tt.query, Options{})
			if err == nil {
				t.Fatal("compiled")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got\n%v\nwant it to hold\n%s", err, tt.want)
			}
			if lines := strings.Split(err.Error(), "\n"); len(lines) != 3 || !strings.HasSuffix(lines[2], "^") {
				t.Errorf("no quoted line and caret:\n%v", err)
			}
		})
	}
}
