package sqlc

import (
	"strings"
	"testing"

	_ "github.com/floe-stream/floe/host/connector/builtin"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
)

const bidsTable = `CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, ts BIGINT)
  WITH (connector = 'file', path = '/in/bids.csv', watermark = 'ts - 2s');
`

func TestCompileParsesAsSpec(t *testing.T) {
	src := bidsTable + `SET parallelism = 2;
CREATE TABLE out (auction BIGINT, n BIGINT, total BIGINT, avgp DOUBLE, ws BIGINT) WITH (connector = 'file', path = '/out');
INSERT INTO out SELECT auction, COUNT(*), SUM(price), AVG(price), TUMBLE_START(ts, INTERVAL '10' SECOND)
FROM bids WHERE price > 10 GROUP BY auction, TUMBLE(ts, INTERVAL '10' SECOND) HAVING COUNT(*) > 1;
`
	j, err := Compile(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := jobspec.Parse(j.Spec, "/", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.Spec)
	}
	p, err := plan.Build(job)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s\n%s", j.Spec, p)
	// COUNT(*) in the SELECT list and in HAVING is computed once.
	agg := job.Operators[2].SQLAggregation
	if agg == nil || len(agg.Aggs) != 3 || agg.Keys != 1 {
		t.Errorf("the window's aggregation: %+v, want COUNT(*), SUM(price), AVG(price) keyed by auction", agg)
	}
}

func TestErrorsPointAtText(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"syntax", "CREATE TABLE t (a BIGINT,) WITH (connector = 'file');", "line 1, column 26: syntax error at or near \")\""},
		{"unknown column", bidsTable + "CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT pricee FROM bids;",
			`line 4, column 22: unknown column "pricee" (bids has: auction, bidder, price, channel, ts)`},
		{"type error", bidsTable + "CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT price FROM bids WHERE channel > 3;",
			"line 4, column 52: cannot compare VARCHAR with BIGINT"},
		{"unknown table", "CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT a FROM nope;",
			`line 2, column 29: unknown table "nope" (declared: o)`},
		{"not grouped", bidsTable + "CREATE TABLE o (a BIGINT, n BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT bidder, COUNT(*) FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '1' SECOND);",
			`line 4, column 22: column "bidder" must appear in GROUP BY or be used in an aggregate function`},
		{"group by twice", bidsTable + "CREATE TABLE o (n BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT COUNT(*) FROM bids GROUP BY price + 1, PRICE+1, TUMBLE(ts, INTERVAL '1' SECOND);",
			"line 4, column 66: GROUP BY names this twice"},
		{"expression not grouped", bidsTable + "CREATE TABLE o (n BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT price * 2 FROM bids GROUP BY price + 1, TUMBLE(ts, INTERVAL '1' SECOND);",
			`line 4, column 22: column "price" must appear in GROUP BY or be used in an aggregate function`},
		{"distinct on", bidsTable + "CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT DISTINCT ON (bidder) auction FROM bids;",
			"line 4, column 35: SELECT DISTINCT ON is not supported yet"},
		{"distinct group by", bidsTable + "CREATE TABLE o (a BIGINT, n BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT DISTINCT auction, COUNT(*) FROM bids GROUP BY auction;",
			"line 4, column 31: SELECT DISTINCT with GROUP BY or aggregates is not supported yet"},
		{"group by position", bidsTable + "CREATE TABLE o (a BIGINT, n BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT auction, COUNT(*) FROM bids GROUP BY 1, TUMBLE(ts, INTERVAL '1' SECOND);",
			"line 4, column 59: GROUP BY a position or a constant is not supported"},
		{"no window", bidsTable + "CREATE TABLE o (a BIGINT, n BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT window_start, COUNT(*) FROM bids GROUP BY auction;",
			"line 4, column 22: window_start: the query groups by no window"},
		{"sink arity", bidsTable + "CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT auction, price FROM bids;",
			"line 4, column 22: the SELECT list has 2 columns, o has 1 (a)"},
		{"window column", bidsTable + "CREATE TABLE o (n BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT COUNT(*) FROM bids GROUP BY TUMBLE(price, INTERVAL '1' SECOND);",
			`line 4, column 57: TUMBLE windows by the event-time column of bids, which is "ts", not "price"`},
		{"hop multiple", bidsTable + "CREATE TABLE o (n BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT COUNT(*) FROM bids GROUP BY HOP(ts, INTERVAL '3' SECOND, INTERVAL '10' SECOND);",
			"line 4, column 50: a HOP window's size (10s) must be a multiple of its slide (3s)"},
		{"sum of string", bidsTable + "CREATE TABLE o (n BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT SUM(channel) FROM bids GROUP BY TUMBLE(ts, INTERVAL '1' SECOND);",
			"line 4, column 22: sum wants a number, got VARCHAR"},
		{"watermark column", "CREATE TABLE t (a VARCHAR) WITH (connector = 'file', watermark = 'a - 1s');",
			`line 1, column 54: option watermark: the event-time column "a" must be a TIMESTAMP or a BIGINT`},
		{"nexmark without event", "CREATE TABLE b (a BIGINT) WITH (connector = 'nexmark');",
			"line 1, column 1: a nexmark table reads one kind of event: WITH (event = 'bid')"},
		{"nexmark columns", "CREATE TABLE b (a BIGINT) WITH (connector = 'nexmark', event = 'bid');",
			"line 1, column 1: a nexmark bid has 6 fields (auction, bidder, price, channel, url, date_time), the table declares 1 columns"},
		{"nexmark kind", "CREATE TABLE b (a BIGINT) WITH (connector = 'nexmark', event = 'bids');",
			`line 1, column 56: option event: unknown nexmark event "bids" (want bid, auction or person)`},
		{"event elsewhere", "CREATE TABLE b (a BIGINT) WITH (connector = 'file', event = 'bid');",
			"line 1, column 53: option event: only for a nexmark table"},
		{"timestamptz type", "CREATE TABLE t (a TIMESTAMPTZ) WITH (connector = 'file');",
			"line 1, column 19: column \"a\": type TIMESTAMPTZ is not supported yet"},
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
			// The message quotes the line at fault, with a caret.
			if lines := strings.Split(err.Error(), "\n"); len(lines) != 3 || !strings.HasSuffix(lines[2], "^") {
				t.Errorf("no quoted line and caret:\n%v", err)
			}
		})
	}
}

// TestQueriesShareTables compiles two queries that read one table, two
// that write one sink: one source and one sink, each read or fed twice.
func TestQueriesShareTables(t *testing.T) {
	src := bidsTable + `CREATE TABLE cheap (auction BIGINT) WITH (connector = 'stdout');
CREATE TABLE dear (auction BIGINT, price BIGINT) WITH (connector = 'file', path = '/out');
INSERT INTO cheap SELECT auction FROM bids WHERE price < 10;
INSERT INTO dear SELECT auction, price FROM bids WHERE price > 900;
INSERT INTO dear SELECT bidder, price FROM bids WHERE price = 500;
`
	j, err := Compile(src, Options{Name: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	job, err := jobspec.Parse(j.Spec, "/", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.Spec)
	}
	if len(job.Sources) != 1 || len(job.Sinks) != 2 || len(job.Operators) != 3 {
		t.Fatalf("%d sources, %d sinks, %d operators; want 1, 2, 3\n%s", len(job.Sources), len(job.Sinks), len(job.Operators), j.Spec)
	}
	for _, op := range job.Operators {
		if len(op.Inputs) != 1 || op.Inputs[0] != "bids" {
			t.Errorf("operator %s reads %v, want [bids]", op.UID, op.Inputs)
		}
	}
	if got := job.Sinks[1].Inputs; len(got) != 2 || got[0] != "dear-1-select" || got[1] != "dear-2-select" {
		t.Errorf("sink dear reads %v, want [dear-1-select dear-2-select]", got)
	}
	if job.Name != "shared" || j.Explain {
		t.Errorf("name %q, explain %v", job.Name, j.Explain)
	}
}

func TestCamelOptions(t *testing.T) {
	for in, want := range map[string]string{"path": "path", "events_per_second": "eventsPerSecond",
		"eventsPerSecond": "eventsPerSecond", "transactional_id_prefix": "transactionalIdPrefix"} {
		if got := camel(in); got != want {
			t.Errorf("camel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLocateSpecErrors parses compiled specs whose connector options are
// wrong: each problem points at the option, or at the CREATE TABLE that
// lacks one.
func TestLocateSpecErrors(t *testing.T) {
	src := `CREATE TABLE bids (auction BIGINT) WITH (connector = 'file', rate = 'fast');
CREATE TABLE o (auction BIGINT)
  WITH (connector = 'file');
INSERT INTO o SELECT auction FROM bids;
`
	j, err := Compile(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = jobspec.Parse(j.Spec, "/", nil)
	if err == nil {
		t.Fatal("the spec parsed")
	}
	got := j.Locate(err).Error()
	for _, want := range []string{
		"line 1, column 62: table bids: rate: must be a number >= 0, got \"fast\"",
		"line 1, column 1: table bids: path: required",
		"line 2, column 1: table o: path: required",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nwant it to hold\n%s", got, want)
		}
	}
}
