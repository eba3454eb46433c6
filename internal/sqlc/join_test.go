package sqlc

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
)

const asksTable = `CREATE TABLE asks (auction BIGINT, seller BIGINT, price DOUBLE, ts BIGINT)
  WITH (connector = 'file', path = '/in/asks.csv', watermark = 'ts - 1s');
`

// TestJoinCompiles compiles a join of two tables: two sources, each side
// keyed by the join key, a join with the SQL combiner, and a spec that
// parses and plans.
func TestJoinCompiles(t *testing.T) {
	for _, tt := range []struct {
		name, query, join string
		// lower and upper are an interval join's bounds in seconds, of
		// the right row's time (asks) relative to the left one's (bids).
		lower, upper float64
	}{
		{"interval, right subject", "INSERT INTO o SELECT b.auction, a.price, b.price FROM bids b JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts - INTERVAL '5' SECOND AND b.ts + INTERVAL '10' SECOND;", "intervalJoin", -5, 10},
		// b.ts in [a.ts - 5s, a.ts + 10s] is a.ts in [b.ts - 10s, b.ts + 5s].
		{"interval, left subject", "INSERT INTO o SELECT b.auction, a.price, b.price FROM bids b JOIN asks a ON b.auction = a.auction AND b.ts BETWEEN a.ts - INTERVAL '5' SECOND AND a.ts + INTERVAL '10' SECOND;", "intervalJoin", -10, 5},
		{"regular, state TTL", "SET state_ttl = '90s';\nINSERT INTO o SELECT b.auction, a.price, b.price FROM bids b JOIN asks a ON a.auction = b.auction;", "intervalJoin", -90, 90},
		{"window", "INSERT INTO o SELECT b.auction, a.price, CAST(window_start AS DOUBLE) FROM bids b LEFT JOIN asks a ON a.auction = b.auction AND TUMBLE(a.ts, INTERVAL '10' SECOND) = TUMBLE(b.ts, INTERVAL '10' SECOND);", "windowJoin", 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := bidsTable + asksTable + "CREATE TABLE o (auction BIGINT, ask DOUBLE, bid DOUBLE) WITH (connector = 'file', path = '/out');\n" + tt.query
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
			if len(job.Sources) != 2 || len(job.Operators) != 6 {
				t.Fatalf("%d sources, %d operators; want 2 and 6\n%s", len(job.Sources), len(job.Operators), j.Spec)
			}
			op := job.Operators[4]
			if string(op.Type) != tt.join || op.Join.SQL == nil || op.Join.SQL.Right != 1+4 {
				t.Errorf("operator 5: %s with %+v, want a %s whose right rows have 5 values", op.Type, op.Join, tt.join)
			}
			if op.Join.Lower.Seconds() != tt.lower || op.Join.Upper.Seconds() != tt.upper {
				t.Errorf("between [%v, %v], want [%gs, %gs]", op.Join.Lower, op.Join.Upper, tt.lower, tt.upper)
			}
			if tt.join == "windowJoin" && (op.Join.Kind != jobspec.JoinLeftOuter || op.Join.SQL.Window != 10_000) {
				t.Errorf("kind %s window %d, want leftOuter over 10s", op.Join.Kind, op.Join.SQL.Window)
			}
		})
	}
}

func TestJoinErrors(t *testing.T) {
	head := bidsTable + asksTable + "CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\n"
	tests := []struct{ name, query, want string }{
		{"no time bound", "INSERT INTO o SELECT b.auction FROM bids b JOIN asks a ON a.auction = b.auction;",
			"line 6, column 69: a join needs a time bound in ON"},
		{"bad ttl", "SET state_ttl = 'forever';", "line 6, column 17: SET state_ttl: want a duration such as '1h' or '30s', got \"forever\""},
		{"no key", "INSERT INTO o SELECT b.auction FROM bids b JOIN asks a ON TUMBLE(a.ts, INTERVAL '1' SECOND) = TUMBLE(b.ts, INTERVAL '1' SECOND);",
			"line 6, column 93: a join needs at least one equality"},
		{"full window", "INSERT INTO o SELECT b.auction FROM bids b FULL JOIN asks a ON a.auction = b.auction AND TUMBLE(a.ts, INTERVAL '1' SECOND) = TUMBLE(b.ts, INTERVAL '1' SECOND);",
			"line 6, column 54: a FULL window join is not supported yet"},
		{"distinct regular outer", "SET state_ttl = '1h';\nINSERT INTO o SELECT DISTINCT b.auction FROM bids b LEFT JOIN asks a ON a.auction = b.auction;",
			"line 7, column 31: SELECT DISTINCT over a regular outer join is not supported yet"},
		{"group regular outer", "SET state_ttl = '1h';\nINSERT INTO o SELECT COUNT(*) FROM bids b LEFT JOIN asks a ON a.auction = b.auction GROUP BY b.auction;",
			"GROUP BY over a regular outer join is not supported yet: its result is updating"},
		{"group regular outer chain", "SET state_ttl = '1h';\nINSERT INTO o SELECT SUM(c.price) FROM bids b JOIN asks a ON a.auction = b.auction FULL JOIN bids c ON c.auction = a.seller GROUP BY b.auction;",
			"GROUP BY over a regular outer join is not supported yet: its result is updating"},
		{"top-n regular outer", "SET state_ttl = '1h';\nINSERT INTO o SELECT auction FROM (SELECT b.auction, ROW_NUMBER() OVER (PARTITION BY b.auction ORDER BY a.price DESC) AS rn FROM bids b LEFT JOIN asks a ON a.auction = b.auction) WHERE rn = 1;",
			"a Top-N over a regular outer join is not supported yet: its result is updating"},
		{"left residual", "INSERT INTO o SELECT b.auction FROM bids b LEFT JOIN asks a ON a.auction = b.auction AND TUMBLE(a.ts, INTERVAL '1' SECOND) = TUMBLE(b.ts, INTERVAL '1' SECOND) AND a.price > 3;",
			"line 6, column 172: an outer join's ON holds only key equalities and the time bound"},
		{"ambiguous", "INSERT INTO o SELECT auction FROM bids b JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts AND b.ts;",
			`line 6, column 22: column "auction" is in both tables: write b.auction or a.auction`},
		{"windows differ", "INSERT INTO o SELECT b.auction FROM bids b JOIN asks a ON a.auction = b.auction AND TUMBLE(a.ts, INTERVAL '1' SECOND) = TUMBLE(b.ts, INTERVAL '2' SECOND);",
			"line 6, column 119: the two windows of a join must be the same"},
		{"not event time", "INSERT INTO o SELECT b.auction FROM bids b JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.price AND b.ts;",
			`line 6, column 98: a join's time bound is on the event-time column of bids, which is "ts", not "price"`},
		{"key types", "INSERT INTO o SELECT b.auction FROM bids b JOIN asks a ON a.auction = b.channel AND a.ts BETWEEN b.ts AND b.ts;",
			"line 6, column 69: the join compares a BIGINT with a VARCHAR (CAST one side)"},
		{"same alias", "INSERT INTO o SELECT bids.auction FROM bids JOIN bids ON bids.auction = bids.auction;",
			"line 6, column 50: both sides of the join are called bids: give one an alias"},
		{"reversed bounds", "INSERT INTO o SELECT b.auction FROM bids b JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts AND b.ts - INTERVAL '1' SECOND;",
			"line 6, column 90: the interval's lower bound (0s) is above its upper bound (-1s)"},
		{"windowed aggregate", "INSERT INTO o SELECT COUNT(*) FROM bids b JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts AND b.ts GROUP BY TUMBLE(b.ts, INTERVAL '1' SECOND);",
			"line 6, column 120: a windowed GROUP BY over a join is not supported yet"},
		{"three tables", "INSERT INTO o SELECT b.auction FROM bids b, asks a, bids c WHERE a.auction = b.auction;",
			"line 6, column 53: a query reads one table or joins two"},
		{"join of joins", "INSERT INTO o SELECT b.auction FROM bids b JOIN asks a ON a.auction = b.auction JOIN bids c ON c.auction = b.auction;",
			"line 6, column 69: a join needs a time bound in ON, or, for a regular join, SET state_ttl"},
		{"unknown qualifier", "INSERT INTO o SELECT c.auction FROM bids b JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts AND b.ts;",
			`line 6, column 22: unknown table "c" (the join reads b and a)`},
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

// TestCommaJoinIsAnInnerJoin compiles FROM a, b WHERE cond to the spec of
// a JOIN b ON cond.
func TestCommaJoinIsAnInnerJoin(t *testing.T) {
	head := bidsTable + asksTable + "CREATE TABLE o (auction BIGINT) WITH (connector = 'stdout');\n"
	comma, err := Compile(head+"INSERT INTO o SELECT b.auction FROM bids b, asks a WHERE a.auction = b.auction AND a.ts BETWEEN b.ts AND b.ts + INTERVAL '1' SECOND AND a.price > 2;", Options{})
	if err != nil {
		t.Fatal(err)
	}
	join, err := Compile(head+"INSERT INTO o SELECT b.auction FROM bids b JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts AND b.ts + INTERVAL '1' SECOND WHERE a.price > 2;", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if string(comma.Spec) != string(join.Spec) {
		t.Errorf("FROM a, b WHERE compiles to\n%s\nJOIN ON to\n%s", comma.Spec, join.Spec)
	}
	_, err = Compile(head+"INSERT INTO o SELECT b.auction FROM bids b, asks a;", Options{})
	if err == nil || !strings.Contains(err.Error(), "line 6, column 45: FROM a, b joins the two tables") {
		t.Errorf("a cross join: %v", err)
	}
}

// TestGroupOverOuterIntervalJoin compiles a GROUP BY over an outer
// interval join, whose result is appended, and an outer interval join
// whose upper bound is a column of the left table (joinbound.go).
func TestGroupOverOuterIntervalJoin(t *testing.T) {
	head := bidsTable + asksTable + "CREATE TABLE o (a BIGINT, n BIGINT) WITH (connector = 'stdout');\n"
	for _, q := range []string{
		"INSERT INTO o SELECT b.auction, COUNT(a.seller) FROM bids b LEFT JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts AND b.ts + INTERVAL '1' SECOND GROUP BY b.auction;",
		"INSERT INTO o SELECT b.auction, a.seller FROM bids b LEFT JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts AND b.price;",
	} {
		j, err := Compile(head+q, Options{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		job, err := jobspec.Parse(j.Spec, "/", nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, j.Spec)
		}
		if _, err := plan.Build(job); err != nil {
			t.Fatal(err)
		}
		for _, op := range job.Operators {
			if op.Join != nil && (op.Join.SQL == nil || op.Join.SQL.Outer != "left" || op.Join.SQL.Changelog) {
				t.Errorf("%s: join %+v, want an appended left outer join", q, op.Join.SQL)
			}
		}
	}
}
