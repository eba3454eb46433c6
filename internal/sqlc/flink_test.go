package sqlc

import (
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/jobspec"
)

// TestFlinkSyntaxCompilesAlike checks each Flink form against the form the
// dialect had before it: the two scripts must compile to the same spec,
// byte for byte.
func TestFlinkSyntaxCompilesAlike(t *testing.T) {
	const sink = "CREATE TABLE o (a BIGINT, ws BIGINT, we BIGINT, n BIGINT) WITH (connector = 'file', path = '/out');\n"
	tests := []struct {
		name, flink, pg string
	}{
		{"watermark for",
			"CREATE TABLE bids (auction BIGINT, price BIGINT,\n  ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND\n) WITH (connector = 'file', path = '/in');\n" +
				sink + "INSERT INTO o SELECT auction, TUMBLE_START(ts, INTERVAL '1' SECOND), TUMBLE_END(ts, INTERVAL '1' SECOND), COUNT(*) FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '1' SECOND);",
			"CREATE TABLE bids (auction BIGINT, price BIGINT, ts BIGINT) WITH (connector = 'file', path = '/in', watermark = 'ts - 2s');\n" +
				sink + "INSERT INTO o SELECT auction, TUMBLE_START(ts, INTERVAL '1' SECOND), TUMBLE_END(ts, INTERVAL '1' SECOND), COUNT(*) FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '1' SECOND);"},
		{"watermark for, if not exists",
			"CREATE TABLE IF NOT EXISTS bids (auction BIGINT, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '500 milliseconds') WITH (connector = 'file', path = '/in');\n" +
				sink + "INSERT INTO o SELECT auction, ts, ts, auction FROM bids;",
			"CREATE TABLE bids (auction BIGINT, ts BIGINT) WITH (connector = 'file', path = '/in', watermark = 'ts - 500ms');\n" +
				sink + "INSERT INTO o SELECT auction, ts, ts, auction FROM bids;"},
		{"watermark for in the middle, no delay",
			"CREATE TABLE bids (auction BIGINT, ts BIGINT, /* c */ watermark FOR ts AS ts, price BIGINT) WITH (connector = 'file', path = '/in');\n" +
				sink + "INSERT INTO o SELECT auction, price, ts, price FROM bids;",
			"CREATE TABLE bids (auction BIGINT, ts BIGINT, price BIGINT) WITH (connector = 'file', path = '/in', watermark = 'ts');\n" +
				sink + "INSERT INTO o SELECT auction, price, ts, price FROM bids;"},
		{"tumble tvf",
			bidsTable + sink + "INSERT INTO o SELECT auction, window_start, window_end, COUNT(*)\nFROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))\nWHERE price > 3 GROUP BY window_start, auction, window_end HAVING SUM(price) > 10;",
			bidsTable + sink + "INSERT INTO o SELECT auction, window_start, window_end, COUNT(*)\nFROM bids WHERE price > 3 GROUP BY auction, TUMBLE(ts, INTERVAL '10' SECOND) HAVING SUM(price) > 10;"},
		{"hop tvf with alias",
			bidsTable + sink + "INSERT INTO o SELECT b.auction, window_start, window_end, MAX(b.price)\nFROM TABLE(\n  HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) AS b GROUP BY b.auction, window_start, window_end;",
			bidsTable + sink + "INSERT INTO o SELECT b.auction, window_start, window_end, MAX(b.price)\nFROM bids AS b GROUP BY b.auction, HOP(ts, INTERVAL '2' SECOND, INTERVAL '10' SECOND);"},
		{"session tvf",
			bidsTable + sink + "INSERT INTO o SELECT bidder, window_start, window_end, COUNT(*)\nFROM TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, bidder;",
			bidsTable + sink + "INSERT INTO o SELECT bidder, window_start, window_end, COUNT(*)\nFROM bids GROUP BY bidder, SESSION(ts, INTERVAL '5' SECOND);"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Compile(tt.flink, Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := Compile(tt.pg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// NB: GROUP BY's order of keys is the key row's order, which
			// the pairs above keep alike; only the window moves.
			if string(a.Spec) != string(b.Spec) {
				t.Errorf("the Flink form compiled to\n%s\nthe other to\n%s", a.Spec, b.Spec)
			}
		})
	}
}

func TestFlinkSyntaxErrors(t *testing.T) {
	const sink = "CREATE TABLE o (a BIGINT, n BIGINT) WITH (connector = 'stdout');\n"
	tests := []struct {
		name, src, want string
	}{
		{"watermark on a missing column", "CREATE TABLE t (a BIGINT,\n  WATERMARK FOR b AS b - INTERVAL '1' SECOND) WITH (connector = 'file');",
			`line 2, column 17: WATERMARK FOR b: no column "b" (columns: a)`},
		{"watermark of another column", "CREATE TABLE t (a BIGINT, b BIGINT,\n  WATERMARK FOR a AS b - INTERVAL '1' SECOND) WITH (connector = 'file');",
			`line 2, column 22: the watermark is the event-time column "a" minus a delay, not "b"`},
		{"watermark bad interval", "CREATE TABLE t (a BIGINT,\n  WATERMARK FOR a AS a - INTERVAL '1' FORTNIGHT) WITH (connector = 'file');",
			`line 2, column 35: bad interval "1"`},
		{"watermark twice", "CREATE TABLE t (a BIGINT, WATERMARK FOR a AS a) WITH (connector = 'file', watermark = 'a');",
			`line 1, column 41: WATERMARK FOR a: the table already has a watermark, on "a"`},
		{"watermark without AS", "CREATE TABLE t (a BIGINT, WATERMARK FOR a) WITH (connector = 'file');",
			"line 1, column 27: want WATERMARK FOR column AS column [- INTERVAL '5' SECOND]"},
		{"tvf without descriptor", bidsTable + sink + "INSERT INTO o SELECT auction, COUNT(*) FROM TABLE(TUMBLE(TABLE bids, ts, INTERVAL '1' SECOND)) GROUP BY auction, window_start, window_end;",
			"line 4, column 45: want TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))"},
		{"tvf on the wrong column", bidsTable + sink + "INSERT INTO o SELECT auction, COUNT(*)\nFROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(price), INTERVAL '1' SECOND)) GROUP BY auction, window_start, window_end;",
			`line 5, column 42: TUMBLE windows by the event-time column of bids, which is "ts", not "price"`},
		{"tvf grouped without bounds", bidsTable + sink + "INSERT INTO o SELECT auction, COUNT(*)\nFROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY auction, window_end;",
			"line 5, column 78: a query over a window TVF groups by window_start and window_end"},
		{"tvf not grouped", bidsTable + sink + "INSERT INTO o SELECT auction, price\nFROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' SECOND));",
			"line 5, column 12: a window TVF's rows are aggregated"},
		{"session without partition", bidsTable + sink + "INSERT INTO o SELECT bidder, COUNT(*)\nFROM TABLE(SESSION(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY bidder, window_start, window_end;",
			"line 5, column 6: a SESSION window is per key"},
		{"session partition not the keys", bidsTable + sink + "INSERT INTO o SELECT bidder, COUNT(*)\nFROM TABLE(SESSION(TABLE bids PARTITION BY auction, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY bidder, window_start, window_end;",
			"line 5, column 31: SESSION's PARTITION BY (auction) must name the GROUP BY's keys (bidder)"},
		{"tvf and group window", bidsTable + sink + "INSERT INTO o SELECT auction, COUNT(*)\nFROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY auction, window_start, window_end, TUMBLE(ts, INTERVAL '1' SECOND);",
			"line 5, column 113: the query reads a window TVF: GROUP BY window_start, window_end instead of a group window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.src, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestProcTimeWindows checks that a window over a PROCTIME() column is a
// processing-time window in the spec, which the spec's parser takes.
func TestProcTimeWindows(t *testing.T) {
	const tables = "CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time BIGINT,\n" +
		"  p AS PROCTIME()) WITH (connector = 'nexmark', event = 'bid', count = '100');\n" +
		"CREATE TABLE o (bidder BIGINT, n BIGINT, ws BIGINT, we BIGINT) WITH (connector = 'file', path = '/out');\n"
	for _, q := range []string{
		"INSERT INTO o SELECT bidder, COUNT(*), window_start, window_end FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(p), INTERVAL '10' SECOND)) GROUP BY bidder, window_start, window_end;",
		"INSERT INTO o SELECT bidder, COUNT(*), TUMBLE_START(p, INTERVAL '10' SECOND), TUMBLE_END(p, INTERVAL '10' SECOND) FROM bid GROUP BY bidder, TUMBLE(p, INTERVAL '10' SECOND);",
	} {
		j, err := Compile(tables+q, Options{})
		if err != nil {
			t.Fatal(err)
		}
		job, err := jobspec.Parse(j.Spec, "/", nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, j.Spec)
		}
		n := 0
		for _, op := range job.Operators {
			if op.Window != nil {
				n++
				if !op.Window.ProcessingTime || op.Window.Kind != "tumbling" || op.Window.Size != 10*time.Second {
					t.Errorf("window %+v: want tumbling 10s in processing time", op.Window)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d windows in\n%s", n, j.Spec)
		}
	}
}

func TestProcTimeErrors(t *testing.T) {
	const table = "CREATE TABLE b (k BIGINT, p AS PROCTIME(), ts BIGINT) WITH (connector = 'file', watermark = 'ts');\n" +
		"CREATE TABLE o (k BIGINT, n BIGINT) WITH (connector = 'stdout');\n"
	tests := []struct {
		name, src, want string
	}{
		{"session", table + "INSERT INTO o SELECT k, COUNT(*) FROM b GROUP BY k, SESSION(p, INTERVAL '1' SECOND);",
			"line 3, column 53: SESSION windows are in event time only"},
		{"twice", "CREATE TABLE b (k BIGINT, p AS PROCTIME(), q AS PROCTIME()) WITH (connector = 'file');",
			"line 1, column 44: a table has one PROCTIME() column"},
		{"a column's name", "CREATE TABLE b (p AS PROCTIME(), p BIGINT) WITH (connector = 'file');",
			`line 1, column 17: column "p" declared twice`},
		{"selected", table + "INSERT INTO o SELECT k, p FROM b;",
			`line 3, column 25: unknown column "p"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.src, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestRewriteBlanksInPlace shows the rewrite's output: the clauses
// PostgreSQL cannot parse become spaces, newlines stay, and every other
// byte keeps its offset; strings and comments are never rewritten.
func TestRewriteBlanksInPlace(t *testing.T) {
	tests := []struct{ in, want string }{
		{"CREATE TABLE t (a BIGINT, ts BIGINT,\n WATERMARK FOR ts AS ts - INTERVAL '1' SECOND\n) WITH (watermark = 'x');",
			"CREATE TABLE t (a BIGINT, ts BIGINT \n                                             \n) WITH (watermark = 'x');"},
		{"CREATE TABLE t (p AS PROCTIME(), a BIGINT);",
			"CREATE TABLE t (                 a BIGINT);"},
		{"SELECT 'TABLE(TUMBLE(' FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND)) -- TABLE(HOP(",
			"SELECT 'TABLE(TUMBLE(' FROM       TUMBLE(      t,            ts , INTERVAL '1' SECOND)  -- TABLE(HOP("},
		{"FROM TABLE(SESSION(TABLE t PARTITION BY k, j, DESCRIPTOR(ts), g))",
			"FROM       SESSION(      t                  ,            ts , g) "},
	}
	for _, tt := range tests {
		got, _, err := rewrite(tt.in)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if got != tt.want || len(got) != len(tt.in) {
			t.Errorf("rewrite(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}
