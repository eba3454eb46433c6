package sqlc

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
)

const chainHead = "CREATE TABLE o (auction BIGINT, bid BIGINT, ask DOUBLE, other BIGINT) WITH (connector = 'file', path = '/out');\n"

// TestChainJoinCompiles compiles joins of three and four tables: one
// branch per table, and per join after the first a sql and a keyBy on the
// joined rows feeding an intervalJoin of [-ttl, +ttl] with the next
// table's branch.
func TestChainJoinCompiles(t *testing.T) {
	for _, tt := range []struct {
		name, query string
		joins       int
		// keys are the keyBy widths of the second join's two inputs; a FULL
		// join adds one (outerjoin.go).
		keys [2]int
	}{
		{"interval then regular", "SET state_ttl = '2s';\nINSERT INTO o SELECT b.auction, b.price, a.price, c.bidder FROM bids b JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts AND b.ts + INTERVAL '1' SECOND JOIN bids c ON c.bidder = b.bidder AND c.auction = a.seller WHERE c.price > 3;", 2, [2]int{2, 2}},
		{"last full", "SET state_ttl = '2s';\nINSERT INTO o SELECT b.auction, b.price, a.price, c.bidder FROM bids b JOIN asks a ON a.auction = b.auction AND a.price > 3 FULL JOIN bids c ON c.bidder = b.bidder;", 2, [2]int{2, 2}},
		{"four regular", "SET state_ttl = '2s';\nINSERT INTO o SELECT b.auction, b.price, a.price, d.seller FROM bids b JOIN asks a ON a.auction = b.auction JOIN bids c ON c.bidder = b.bidder JOIN asks d ON d.seller = c.bidder AND d.price > b.price;", 3, [2]int{1, 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j, err := Compile(bidsTable+asksTable+chainHead+tt.query, Options{})
			if err != nil {
				t.Fatal(err)
			}
			job, err := jobspec.Parse(j.Spec, "/", nil)
			if err != nil {
				t.Fatalf("%v\n%s", err, j.Spec)
			}
			if _, err := plan.Build(job); err != nil {
				t.Fatalf("%v\n%s", err, j.Spec)
			}
			var joins []*jobspec.Operator
			for i := range job.Operators {
				if job.Operators[i].Type == jobspec.OperatorIntervalJoin {
					joins = append(joins, &job.Operators[i])
				}
			}
			if len(joins) != tt.joins {
				t.Fatalf("%d joins, want %d\n%s", len(joins), tt.joins, j.Spec)
			}
			second := joins[1]
			if second.Join.Lower.Seconds() != -2 || second.Join.Upper.Seconds() != 2 || len(second.Inputs) != 2 {
				t.Errorf("the second join: between [%v, %v], inputs %v; want [-2s, 2s] and two inputs", second.Join.Lower, second.Join.Upper, second.Inputs)
			}
			for i, in := range second.Inputs {
				key := job.Operators[opIndex(job.Operators, in)].Key.Field
				if key != tt.keys[i] {
					t.Errorf("input %d (%s) is keyed on %d values, want %d", i, in, key, tt.keys[i])
				}
			}
			last := job.Operators[len(job.Operators)-1].SQL
			if full := strings.Contains(tt.name, "full"); second.Join.SQL.Changelog != full || last.Retracts != full || (full && second.Join.SQL.Left != 2+(1+5)+(1+4)) {
				t.Errorf("the second join's rows %+v, the last program retracts %v; want an outer changelog for a FULL join", second.Join.SQL, last.Retracts)
			}
			if !strings.HasSuffix(second.Inputs[0], "-left2-key") || !strings.HasSuffix(second.Inputs[1], "-right2-key") {
				t.Errorf("the second join reads %v", second.Inputs)
			}
		})
	}
}

// opIndex returns the index of the operator uid.
func opIndex(ops []jobspec.Operator, uid string) int {
	for i, op := range ops {
		if op.UID == uid {
			return i
		}
	}
	return -1
}

func TestChainJoinErrors(t *testing.T) {
	head := bidsTable + asksTable + chainHead
	for _, tt := range []struct{ name, query, want string }{
		{"no ttl", "INSERT INTO o SELECT b.auction, b.price, a.price, c.bidder FROM bids b JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts AND b.ts JOIN bids c ON c.bidder = b.bidder;",
			"line 6, column 164: the later joins of a chain are regular joins: SET state_ttl"},
		{"later interval", "SET state_ttl = '1s';\nINSERT INTO o SELECT b.auction, b.price, a.price, c.bidder FROM bids b JOIN asks a ON a.auction = b.auction JOIN bids c ON c.bidder = b.bidder AND c.ts BETWEEN a.ts AND a.ts;",
			"line 7, column 153: only the first join of a chain takes a time bound"},
		{"outer first", "SET state_ttl = '1s';\nINSERT INTO o SELECT b.auction, b.price, a.price, c.bidder FROM bids b LEFT JOIN asks a ON a.auction = b.auction JOIN bids c ON c.bidder = b.bidder;",
			"a join of more than two tables is a chain of inner joins, but for the last"},
		{"outer residual", "SET state_ttl = '1s';\nINSERT INTO o SELECT b.auction, b.price, a.price, c.bidder FROM bids b JOIN asks a ON a.auction = b.auction LEFT JOIN bids c ON c.bidder = b.bidder AND c.price > 3;",
			"an outer join's ON holds only key equalities"},
		{"window first", "SET state_ttl = '1s';\nINSERT INTO o SELECT b.auction, b.price, a.price, c.bidder FROM bids b JOIN asks a ON a.auction = b.auction AND TUMBLE(a.ts, INTERVAL '1' SECOND) = TUMBLE(b.ts, INTERVAL '1' SECOND) JOIN bids c ON c.bidder = b.bidder;",
			"a join of more than two tables is a chain of interval or regular joins"},
		{"same alias", "SET state_ttl = '1s';\nINSERT INTO o SELECT b.auction, b.price, a.price, a.seller FROM bids b JOIN asks a ON a.auction = b.auction JOIN bids a ON a.bidder = b.bidder;",
			"two tables of the join are called a"},
		{"ambiguous", "SET state_ttl = '1s';\nINSERT INTO o SELECT b.auction, b.price, a.price, bidder FROM bids b JOIN asks a ON a.auction = b.auction JOIN bids c ON c.bidder = b.bidder;",
			`column "bidder" is in tables b and c`},
		{"no key", "SET state_ttl = '1s';\nINSERT INTO o SELECT b.auction, b.price, a.price, c.bidder FROM bids b JOIN asks a ON a.auction = b.auction JOIN bids c ON c.bidder > b.bidder;",
			"a join needs at least one equality"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(head+tt.query, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got\n%v\nwant it to hold\n%s", err, tt.want)
			}
		})
	}
}
