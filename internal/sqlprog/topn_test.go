package sqlprog

import (
	"testing"

	"github.com/floe-stream/floe/internal/sqlrow"
)

func TestTopNInsert(t *testing.T) {
	null := sqlrow.Value{}
	row := func(k int64, v sqlrow.Value, id int64) sqlrow.Row {
		return sqlrow.Row{sqlrow.Int(k), v, sqlrow.Int(id)}
	}
	types := []sqlrow.Type{sqlrow.BigInt, sqlrow.BigInt, sqlrow.BigInt}
	tests := []struct {
		name  string
		order []SortKey
		n     int
		rows  []sqlrow.Row
		// want are the ids of the ranked rows, in order, and ranks the
		// rank each insert returned.
		want, ranks []int64
	}{
		{"ascending", []SortKey{{Col: 1}}, 3,
			[]sqlrow.Row{row(1, sqlrow.Int(5), 1), row(1, sqlrow.Int(3), 2), row(1, sqlrow.Int(9), 3), row(1, sqlrow.Int(1), 4), row(1, sqlrow.Int(10), 5)},
			[]int64{4, 2, 1}, []int64{0, 0, 2, 0, -1}},
		{"descending", []SortKey{{Col: 1, Desc: true}}, 2,
			[]sqlrow.Row{row(1, sqlrow.Int(5), 1), row(1, sqlrow.Int(3), 2), row(1, sqlrow.Int(9), 3)},
			[]int64{3, 1}, []int64{0, 1, 0}},
		{"ties keep the first", []SortKey{{Col: 1}}, 2,
			[]sqlrow.Row{row(1, sqlrow.Int(5), 1), row(1, sqlrow.Int(5), 2), row(1, sqlrow.Int(5), 3)},
			[]int64{1, 2}, []int64{0, 1, -1}},
		{"NULL last ascending", []SortKey{{Col: 1}}, 2,
			[]sqlrow.Row{row(1, null, 1), row(1, sqlrow.Int(7), 2), row(1, null, 3)},
			[]int64{2, 1}, []int64{0, 0, -1}},
		{"NULLS FIRST descending", []SortKey{{Col: 1, Desc: true, NullsFirst: true}}, 2,
			[]sqlrow.Row{row(1, sqlrow.Int(7), 1), row(1, null, 2)},
			[]int64{2, 1}, []int64{0, 0}},
		{"NULLS LAST descending", []SortKey{{Col: 1, Desc: true}}, 2,
			[]sqlrow.Row{row(1, null, 1), row(1, sqlrow.Int(7), 2)},
			[]int64{2, 1}, []int64{0, 0}},
		{"NULLS FIRST ascending", []SortKey{{Col: 1, NullsFirst: true}}, 2,
			[]sqlrow.Row{row(1, sqlrow.Int(7), 1), row(1, null, 2)},
			[]int64{2, 1}, []int64{0, 0}},
		{"second key breaks ties", []SortKey{{Col: 1, Desc: true}, {Col: 2}}, 3,
			[]sqlrow.Row{row(1, sqlrow.Int(5), 9), row(1, sqlrow.Int(5), 4), row(1, sqlrow.Int(6), 7)},
			[]int64{7, 4, 9}, []int64{0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tn := &TopN{Input: types, Keys: 1, Order: tt.order, N: tt.n}
			if err := tn.Check(); err != nil {
				t.Fatal(err)
			}
			var ranked []sqlrow.Row
			for i, r := range tt.rows {
				var at int
				ranked, at = tn.Insert(ranked, r)
				if int64(at) != tt.ranks[i] {
					t.Errorf("insert %d took rank %d, want %d", i, at, tt.ranks[i])
				}
			}
			var got []int64
			for _, r := range ranked {
				got = append(got, r[2].I)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("ranked ids %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("ranked ids %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestParseTopNChecks(t *testing.T) {
	for _, s := range []string{
		`{"input":["BIGINT"],"keys":2,"order":[{"col":0}],"n":1}`,
		`{"input":["BIGINT"],"keys":1,"order":[{"col":0}],"n":0}`,
		`{"input":["BIGINT"],"keys":1,"order":[],"n":1}`,
		`{"input":["BIGINT"],"keys":1,"order":[{"col":1}],"n":1}`,
	} {
		if _, err := ParseTopN(s); err == nil {
			t.Errorf("ParseTopN(%s) accepted it", s)
		}
	}
	if _, err := ParseTopN(`{"input":["BIGINT","VARCHAR"],"keys":1,"order":[{"col":1,"desc":true}],"n":3}`); err != nil {
		t.Error(err)
	}
}
