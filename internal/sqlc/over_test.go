package sqlc

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
)

// auctionsAndBids are q9's tables, as files.
const auctionsAndBids = `CREATE TABLE auction (id BIGINT, seller BIGINT, date_time BIGINT, expires BIGINT)
  WITH (connector = 'file', path = '/in/a.csv', watermark = 'date_time');
CREATE TABLE bid (auction BIGINT, price BIGINT, date_time BIGINT)
  WITH (connector = 'file', path = '/in/b.csv', watermark = 'date_time');
CREATE TABLE o (seller BIGINT, average DOUBLE) WITH (connector = 'stdout');
`

// parsePlanned compiles src into a spec that parses and plans.
func parsePlanned(t *testing.T, src string) *jobspec.Job {
	t.Helper()
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
	return job
}

// TestOverCompiles compiles OVER aggregates over a table: one sqlOver
// after a keyBy on the partition, its time the ORDER BY's first key, each
// aggregate with its own frame, unbounded included.
func TestOverCompiles(t *testing.T) {
	job := parsePlanned(t, bidsTable+`CREATE TABLE o (auction BIGINT, s BIGINT, n BIGINT) WITH (connector = 'stdout');
INSERT INTO o SELECT auction,
  SUM(price) OVER (PARTITION BY auction ORDER BY ts, bidder ROWS BETWEEN 4 PRECEDING AND CURRENT ROW),
  COUNT(*) OVER (PARTITION BY auction ORDER BY ts, bidder ROWS BETWEEN CURRENT ROW AND CURRENT ROW)
    + SUM(price) OVER (PARTITION BY auction ORDER BY ts, bidder ROWS UNBOUNDED PRECEDING)
FROM bids WHERE price > 10;
`)
	if len(job.Operators) != 4 || job.Operators[2].Type != jobspec.OperatorSQLOver {
		t.Fatalf("want sql, keyBy, sqlOver, sql; got %d operators", len(job.Operators))
	}
	o := job.Operators[2].SQLOver
	if o.Keys != 1 || o.Time != 1 || len(o.Order) != 2 || len(o.Aggs) != 3 || o.Aggs[0].Preceding != 4 || o.Aggs[1].Preceding != 0 || o.Aggs[1].Arg != -1 || o.Aggs[2].Preceding != -1 {
		t.Errorf("over %s, want one key, the time then bidder, SUM over 4 preceding, COUNT(*) over the row and SUM over all before", o)
	}
	if job.Operators[0].SQL.Where == nil {
		t.Error("the WHERE is not applied before the OVER")
	}
}

// TestOverOfAFinalGroupCompiles compiles q6's form: the OVER reads a GROUP
// BY over q9's join that groups by the join's bound, which is then final
// there and written as plain rows, not a changelog.
func TestOverOfAFinalGroupCompiles(t *testing.T) {
	job := parsePlanned(t, auctionsAndBids+`INSERT INTO o
SELECT seller, AVG(final) OVER (PARTITION BY seller ORDER BY expires, id ROWS BETWEEN 9 PRECEDING AND CURRENT ROW) FROM (
  SELECT a.id, a.seller, a.expires, MAX(b.price) AS final
  FROM auction a JOIN bid b ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires
  GROUP BY a.id, a.seller, a.expires
);
`)
	var group, over *jobspec.Operator
	for i, op := range job.Operators {
		switch op.Type {
		case jobspec.OperatorSQLGroup:
			group = &job.Operators[i]
		case jobspec.OperatorSQLOver:
			over = &job.Operators[i]
		}
	}
	if group == nil || over == nil {
		t.Fatal("want a sqlGroup and a sqlOver")
	}
	if f := group.SQLAggregation.FinalAt; f == nil || *f != 2 {
		t.Errorf("the group is final at %v, want at its third key, a.expires", f)
	}
	for _, op := range job.Operators {
		if op.SQL != nil && op.SQL.Changelog {
			t.Errorf("%s writes a changelog: the final group's rows are appended", op.UID)
		}
	}
	if over.SQLOver.Aggs[0].Preceding != 9 {
		t.Errorf("over %s, want 9 preceding", over.SQLOver)
	}
}

func TestOverErrors(t *testing.T) {
	q6 := func(from string) string {
		return auctionsAndBids + "INSERT INTO o SELECT seller, AVG(final) OVER (PARTITION BY seller ORDER BY expires ROWS 9 PRECEDING) FROM (" + from + ");"
	}
	join := " FROM auction a JOIN bid b ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires "
	head := bidsTable + "CREATE TABLE o (a BIGINT, b DOUBLE) WITH (connector = 'stdout');\n"
	tests := []struct{ name, src, want string }{
		{"order not by time", head + "INSERT INTO o SELECT auction, AVG(price) OVER (PARTITION BY auction ORDER BY bidder ROWS 2 PRECEDING) FROM bids;",
			"an OVER aggregate needs ORDER BY the event-time column first, ascending (ts)"},
		{"descending", head + "INSERT INTO o SELECT auction, AVG(price) OVER (ORDER BY ts DESC ROWS 2 PRECEDING) FROM bids;",
			"an OVER aggregate needs ORDER BY the event-time column first"},
		{"range frame", head + "INSERT INTO o SELECT auction, AVG(price) OVER (ORDER BY ts RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) FROM bids;",
			"an OVER aggregate needs the frame ROWS BETWEEN n PRECEDING AND CURRENT ROW"},
		{"default frame", head + "INSERT INTO o SELECT auction, AVG(price) OVER (ORDER BY ts) FROM bids;",
			"an OVER aggregate needs the frame ROWS BETWEEN n PRECEDING AND CURRENT ROW"},
		{"not a constant", head + "INSERT INTO o SELECT auction, AVG(price) OVER (ORDER BY ts ROWS BETWEEN auction PRECEDING AND CURRENT ROW) FROM bids;",
			"n a constant, or UNBOUNDED PRECEDING"},
		{"following", head + "INSERT INTO o SELECT auction, AVG(price) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM bids;",
			"an OVER aggregate needs the frame ROWS BETWEEN n PRECEDING AND CURRENT ROW"},
		{"two windows", head + "INSERT INTO o SELECT COUNT(*) OVER (PARTITION BY auction ORDER BY ts ROWS 2 PRECEDING), AVG(price) OVER (PARTITION BY bidder ORDER BY ts ROWS 2 PRECEDING) FROM bids;",
			"every OVER of a query needs the same PARTITION BY and ORDER BY"},
		{"distinct", head + "INSERT INTO o SELECT auction, COUNT(DISTINCT price) OVER (ORDER BY ts ROWS 2 PRECEDING) FROM bids;",
			"DISTINCT, FILTER and ORDER BY in an OVER aggregate are not supported"},
		{"group by", head + "INSERT INTO o SELECT auction, AVG(price) OVER (ORDER BY ts ROWS 2 PRECEDING) FROM bids GROUP BY auction;",
			"OVER aggregates with GROUP BY, HAVING or DISTINCT are not supported"},
		{"row_number", head + "INSERT INTO o SELECT ROW_NUMBER() OVER (ORDER BY ts), AVG(price) OVER (ORDER BY ts ROWS 2 PRECEDING) FROM bids;",
			"ROW_NUMBER() OVER is not supported here"},
		{"group not by the bound", q6("SELECT a.id, a.seller, MAX(a.expires) AS expires, MAX(b.price) AS final" + join + "GROUP BY a.id, a.seller"),
			"must group by the join's bound column"},
		{"bound not selected", q6("SELECT a.id, a.seller, MAX(b.price) AS final" + join + "GROUP BY a.id, a.seller, a.expires"),
			"select the join's bound column"},
		{"join without a bound column", q6("SELECT a.id, a.seller, a.expires, MAX(b.price) AS final FROM auction a JOIN bid b ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.date_time + INTERVAL '1' HOUR GROUP BY a.id, a.seller, a.expires"),
			"needs an interval join whose upper bound is a column of the left table"},
		{"not a group", q6("SELECT a.id, a.seller, a.expires, b.price AS final" + join),
			"OVER aggregates read a table, or a GROUP BY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.src, Options{})
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
