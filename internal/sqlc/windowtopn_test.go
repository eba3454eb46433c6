package sqlc

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/internal/sqlprog"
)

// TestWindowTopNCompiles compiles both forms of a window Top-N: the
// ranking runs in a window whose sql: is the ranking, of the query's
// window over a table, or of the GROUP BY's slide after its operators; the
// spec parses and plans, and the result is appended (no changelog).
func TestWindowTopNCompiles(t *testing.T) {
	tests := []struct {
		name, sink, query string
		types             []string // of the operators
		size              string   // of the ranking window
		fn                string
	}{
		{"over a table", "we BIGINT, price BIGINT, rk BIGINT", `INSERT INTO o SELECT window_end, price, rk FROM (
  SELECT price, window_end, RANK() OVER (PARTITION BY TUMBLE(ts, INTERVAL '10' SECOND), channel ORDER BY price DESC) AS rk FROM bids
) WHERE rk <= 2;`, []string{"sql", "keyBy", "window", "sql"}, "10s", sqlprog.Rank},
		{"over a HOP GROUP BY", "we BIGINT, auction BIGINT, n BIGINT", `INSERT INTO o SELECT window_end, auction, n FROM (
  SELECT auction, n, window_start, window_end, DENSE_RANK() OVER (PARTITION BY window_start, window_end ORDER BY n DESC) AS rk
  FROM (SELECT auction, window_start, window_end, COUNT(*) AS n FROM bids GROUP BY auction, HOP(ts, INTERVAL '2' SECOND, INTERVAL '10' SECOND))
) WHERE rk <= 1;`, []string{"sql", "keyBy", "window", "sql", "sql", "keyBy", "window", "sql"}, "2s", sqlprog.DenseRank},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := bidsTable + "CREATE TABLE o (" + tt.sink + ") WITH (connector = 'file', path = '/out');\n" + tt.query
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
			var types []string
			for _, op := range job.Operators {
				types = append(types, string(op.Type))
			}
			if strings.Join(types, ",") != strings.Join(tt.types, ",") {
				t.Fatalf("operators %v, want %v\n%s", types, tt.types, j.Spec)
			}
			rankOp := job.Operators[len(job.Operators)-2]
			if rankOp.SQLTopN == nil || rankOp.SQLTopN.Fn != tt.fn || rankOp.Window.Size.String() != tt.size {
				t.Errorf("the ranking window: %+v of %v, want %s of %s\n%s", rankOp.SQLTopN, rankOp.Window.Size, tt.fn, tt.size, j.Spec)
			}
			if job.Operators[len(job.Operators)-1].SQL.Changelog {
				t.Error("a window Top-N's result is appended, not a changelog")
			}
		})
	}
}

func TestWindowTopNErrors(t *testing.T) {
	head := bidsTable + "CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\n"
	agg := "(SELECT auction, window_start, window_end, COUNT(*) AS n FROM bids GROUP BY auction, %s)"
	tests := []struct{ name, query, want string }{
		{"session", "INSERT INTO o SELECT auction FROM (SELECT auction, RANK() OVER (PARTITION BY SESSION(ts, INTERVAL '1' SECOND) ORDER BY price) AS rk FROM bids) WHERE rk <= 1;",
			"a window Top-N ranks TUMBLE or HOP windows, not SESSION ones"},
		{"bound without a window", "INSERT INTO o SELECT we FROM (SELECT window_end AS we, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price) AS rn FROM bids) WHERE rn <= 1;",
			"we: the Top-N ranks in no window"},
		{"bound of another window", "INSERT INTO o SELECT we FROM (SELECT TUMBLE_END(ts, INTERVAL '5' SECOND) AS we, RANK() OVER (PARTITION BY TUMBLE(ts, INTERVAL '10' SECOND) ORDER BY price) AS rk FROM bids) WHERE rk <= 1;",
			"TUMBLE_END does not name the window of the Top-N's PARTITION BY"},
		{"across windows", "INSERT INTO o SELECT auction FROM (SELECT auction, RANK() OVER (PARTITION BY window_end ORDER BY n) AS rk FROM " +
			strings.Replace(agg, "%s", "TUMBLE(ts, INTERVAL '10' SECOND)", 1) + ") WHERE rk <= 1;",
			"partitions by its window_start and window_end"},
		{"over an updating GROUP BY", "INSERT INTO o SELECT auction FROM (SELECT auction, RANK() OVER (ORDER BY n) AS rk FROM (SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction)) WHERE rk <= 1;",
			"a Top-N over a GROUP BY without a window ranks an updating result"},
		{"window over a GROUP BY", "INSERT INTO o SELECT auction FROM (SELECT auction, RANK() OVER (PARTITION BY TUMBLE(ts, INTERVAL '10' SECOND) ORDER BY n) AS rk FROM " +
			strings.Replace(agg, "%s", "TUMBLE(ts, INTERVAL '10' SECOND)", 1) + ") WHERE rk <= 1;",
			"the subquery's rows are a window's already: PARTITION BY window_start, window_end"},
		{"unnamed GROUP BY column", "INSERT INTO o SELECT auction FROM (SELECT auction, RANK() OVER (PARTITION BY window_start, window_end ORDER BY auction) AS rk FROM (SELECT auction, window_start, window_end, COUNT(*) FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '1' SECOND))) WHERE rk <= 1;",
			"name this column with AS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(head+tt.query, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// TestTopNOverColumnBoundJoin compiles q9's shape: an interval join whose
// upper bound is the left table's column, feeding a Top-1 over its rows.
// The join's rows carry the bound's position (the key, then the column),
// and the ranking is the updating sqlTopN after the join's last sql.
func TestTopNOverColumnBoundJoin(t *testing.T) {
	src := `CREATE TABLE a (id BIGINT, ts BIGINT, expires BIGINT) WITH (connector = 'file', path = '/in/a', watermark = 'ts');
CREATE TABLE b (auction BIGINT, price BIGINT, ts BIGINT) WITH (connector = 'file', path = '/in/b', watermark = 'ts');
CREATE TABLE o (id BIGINT, price BIGINT) WITH (connector = 'file', path = '/out');
INSERT INTO o SELECT id, price FROM (
  SELECT a.id, b.price, ROW_NUMBER() OVER (PARTITION BY a.id ORDER BY b.price DESC, b.ts) AS rn
  FROM a JOIN b ON a.id = b.auction AND b.ts BETWEEN a.ts AND a.expires
) WHERE rn = 1;
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
	var types []string
	var until int
	for _, op := range job.Operators {
		types = append(types, string(op.Type))
		if op.Join != nil && op.Join.SQL != nil {
			until = op.Join.SQL.Until
		}
	}
	want := "sql,keyBy,sql,keyBy,intervalJoin,sql,sql,keyBy,sqlTopN,sql"
	if strings.Join(types, ",") != want {
		t.Fatalf("operators %v, want %s\n%s", types, want, j.Spec)
	}
	if until != 4 {
		t.Errorf("the join's until is value %d of the left row, want 4 (the key, id, ts, expires)\n%s", until, j.Spec)
	}
}
