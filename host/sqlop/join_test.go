package sqlop

import (
	"context"
	"testing"

	"github.com/floe-stream/floe/host/join"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

func TestJoinRows(t *testing.T) {
	left := sqlrow.AppendRow(nil, sqlrow.Row{sqlrow.Int(7), sqlrow.Str("a")})
	right := sqlrow.AppendRow(nil, sqlrow.Row{sqlrow.Int(7), sqlrow.Float(2.5)})
	for _, tc := range []struct {
		name string
		spec sqlprog.JoinRows
		pair join.Pair
		want sqlrow.Row
	}{
		{"inner", sqlprog.JoinRows{Right: 2}, join.Pair{Left: left, Right: right, HasRight: true, Timestamp: 5},
			sqlrow.Row{sqlrow.Int(7), sqlrow.Str("a"), sqlrow.Int(7), sqlrow.Float(2.5)}},
		{"unmatched left", sqlprog.JoinRows{Right: 2}, join.Pair{Left: left, Timestamp: 5},
			sqlrow.Row{sqlrow.Int(7), sqlrow.Str("a"), {}, {}}},
		{"window bounds", sqlprog.JoinRows{Right: 2, Window: 10_000}, join.Pair{Left: left, Right: right, HasRight: true, Timestamp: 19_999},
			sqlrow.Row{sqlrow.Int(7), sqlrow.Str("a"), sqlrow.Int(7), sqlrow.Float(2.5), sqlrow.Int(10_000), sqlrow.Int(20_000)}},
		{"window, unmatched", sqlprog.JoinRows{Right: 2, Window: 10_000}, join.Pair{Left: left, Timestamp: 9_999},
			sqlrow.Row{sqlrow.Int(7), sqlrow.Str("a"), {}, {}, sqlrow.Int(0), sqlrow.Int(10_000)}},
		{"session bounds", sqlprog.JoinRows{Right: 2, Session: true}, join.Pair{Left: left, Right: right, HasRight: true, Timestamp: 19_999, WindowStart: 12_345},
			sqlrow.Row{sqlrow.Int(7), sqlrow.Str("a"), sqlrow.Int(7), sqlrow.Float(2.5), sqlrow.Int(12_345), sqlrow.Int(20_000)}},
		{"unmatched right", sqlprog.JoinRows{Right: 2, Left: 2, Outer: "right"}, join.Pair{Right: right, HasRight: true, NoLeft: true, Timestamp: 5},
			sqlrow.Row{{}, {}, sqlrow.Int(7), sqlrow.Float(2.5)}},
		{"retraction", sqlprog.JoinRows{Right: 2, Left: 2, Outer: "full", Changelog: true}, join.Pair{Left: left, Retract: true, Timestamp: 5},
			sqlrow.Row{sqlrow.Int(7), sqlrow.Str("a"), {}, {}, sqlrow.Int(1)}},
		{"changelog insert", sqlprog.JoinRows{Right: 2, Outer: "left", Changelog: true}, join.Pair{Left: left, Right: right, HasRight: true, Timestamp: 5},
			sqlrow.Row{sqlrow.Int(7), sqlrow.Str("a"), sqlrow.Int(7), sqlrow.Float(2.5), sqlrow.Int(0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out record.Batch
			j := &JoinRows{Spec: &tc.spec}
			tc.pair.Key = []byte("k")
			if err := j.Combine(context.Background(), []join.Pair{tc.pair}, &out); err != nil {
				t.Fatal(err)
			}
			if len(out.Records) != 1 {
				t.Fatalf("%d records, want 1", len(out.Records))
			}
			r := out.Records[0]
			got, err := sqlrow.DecodeRow(nil, r.Value, len(tc.want))
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := sqlrow.PrefixLen(r.Value, len(tc.want)); n != len(r.Value) {
				t.Errorf("the row has %d bytes after its %d values", len(r.Value)-n, len(tc.want))
			}
			for i := range tc.want {
				if got[i] != tc.want[i] {
					t.Errorf("value %d = %v, want %v", i, got[i], tc.want[i])
				}
			}
			if string(r.Key) != "k" || r.Timestamp != tc.pair.Timestamp {
				t.Errorf("key %q ts %d, want the pair's", r.Key, r.Timestamp)
			}
		})
	}
}
