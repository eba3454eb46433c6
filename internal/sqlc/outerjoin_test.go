package sqlc

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
)

// TestOuterJoinCompiles compiles each outer join form: the join operator's
// outer sides and changelog, which table is the left input (a RIGHT JOIN
// swaps them), and whether the last program writes a changelog.
func TestOuterJoinCompiles(t *testing.T) {
	const (
		interval = " AND a.ts BETWEEN b.ts - INTERVAL '5' SECOND AND b.ts + INTERVAL '10' SECOND"
		window   = " AND TUMBLE(a.ts, INTERVAL '10' SECOND) = TUMBLE(b.ts, INTERVAL '10' SECOND)"
	)
	for _, tt := range []struct {
		name, join, bound string
		ttl               bool
		// want: the join operator's type, outer sides, changelog, window
		// kind, the table of its left input, and the extra key of FULL.
		typ, outer, kind, left string
		changelog              bool
		keys                   int
	}{
		{"left interval", "LEFT", interval, false, "intervalJoin", "left", "", "bids", false, 1},
		{"right interval", "RIGHT", interval, false, "intervalJoin", "left", "", "asks", false, 1},
		{"full interval", "FULL", interval, false, "intervalJoin", "full", "", "bids", false, 2},
		{"left regular", "LEFT", "", true, "intervalJoin", "left", "", "bids", true, 1},
		{"right regular", "RIGHT OUTER", "", true, "intervalJoin", "left", "", "asks", true, 1},
		{"full regular", "FULL OUTER", "", true, "intervalJoin", "full", "", "bids", true, 2},
		{"right window", "RIGHT", window, false, "windowJoin", "", "leftOuter", "asks", false, 1},
		{"inner regular", "", "", true, "intervalJoin", "", "", "bids", false, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := bidsTable + asksTable + "CREATE TABLE o (auction BIGINT, ask DOUBLE, bid DOUBLE) WITH (connector = 'file', path = '/out');\n"
			if tt.ttl {
				src += "SET state_ttl = '1m';\n"
			}
			src += "INSERT INTO o SELECT b.auction, a.price, b.price FROM bids b " + tt.join + " JOIN asks a ON a.auction = b.auction" + tt.bound + ";"
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
			op := job.Operators[4]
			if string(op.Type) != tt.typ || op.Join.SQL.Outer != tt.outer || op.Join.SQL.Changelog != tt.changelog {
				t.Errorf("%s outer %q changelog %v, want %s %q %v", op.Type, op.Join.SQL.Outer, op.Join.SQL.Changelog, tt.typ, tt.outer, tt.changelog)
			}
			if tt.kind != "" && string(op.Join.Kind) != tt.kind {
				t.Errorf("kind %s, want %s", op.Join.Kind, tt.kind)
			}
			if in := job.Operators[0].Inputs[0]; in != tt.left {
				t.Errorf("the left side reads %s, want %s", in, tt.left)
			}
			if key := job.Operators[1].Key.Field; key != tt.keys {
				t.Errorf("the left key is row:%d, want row:%d", key, tt.keys)
			}
			last := job.Operators[5].SQL
			if last == nil || last.Retracts != tt.changelog {
				t.Errorf("the last program retracts: %v, want %v", last != nil && last.Retracts, tt.changelog)
			}
		})
	}
}

// TestSessionJoinCompiles compiles a SESSION window join: a windowJoin of
// session windows whose rows end with the session's bounds.
func TestSessionJoinCompiles(t *testing.T) {
	src := bidsTable + asksTable + "CREATE TABLE o (auction BIGINT, ws BIGINT, we BIGINT) WITH (connector = 'file', path = '/out');\n" +
		"INSERT INTO o SELECT b.auction, window_start, window_end FROM bids b LEFT JOIN asks a ON a.auction = b.auction AND SESSION(a.ts, INTERVAL '3' SECOND) = SESSION(b.ts, INTERVAL '3' SECOND);"
	j, err := Compile(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := jobspec.Parse(j.Spec, "/", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.Spec)
	}
	op := job.Operators[4]
	if op.Window == nil || op.Window.Kind != "session" || op.Window.Gap.Seconds() != 3 || !op.Join.SQL.Session || op.Join.Kind != jobspec.JoinLeftOuter {
		t.Errorf("window %+v, sql %+v, kind %s: want a leftOuter join of 3s sessions with their bounds", op.Window, op.Join.SQL, op.Join.Kind)
	}
	_, err = Compile(bidsTable+asksTable+"CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\n"+
		"INSERT INTO o SELECT b.auction FROM bids b JOIN asks a ON a.auction = b.auction AND SESSION(a.ts, INTERVAL '3' SECOND) = SESSION(b.ts, INTERVAL '2' SECOND);", Options{})
	if err == nil || !strings.Contains(err.Error(), "the two windows of a join must be the same") {
		t.Errorf("sessions of two gaps: %v", err)
	}
}
