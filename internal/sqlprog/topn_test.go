package sqlprog

import (
	"slices"
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

// TestTopNRanks inserts rows with many ties one at a time and checks the
// list and its ranks against a brute force over all the rows: sorted
// (stable, so ties keep arrival order), ranked by the definition of each
// function, cut where the rank passes N.
func TestTopNRanks(t *testing.T) {
	types := []sqlrow.Type{sqlrow.BigInt, sqlrow.BigInt, sqlrow.BigInt}
	for _, fn := range []string{RowNumber, Rank, DenseRank} {
		for n := 1; n <= 4; n++ {
			for seed := int64(0); seed < 20; seed++ {
				tn := &TopN{Input: types, Keys: 1, Order: []SortKey{{Col: 1, Desc: true}}, N: n, Fn: fn}
				if err := tn.Check(); err != nil {
					t.Fatal(err)
				}
				var all, ranked []sqlrow.Row
				x := seed
				for id := int64(0); id < 12; id++ {
					x = (x*1103515245 + 12345) % 2147483648
					r := sqlrow.Row{sqlrow.Int(0), sqlrow.Int(x % 4), sqlrow.Int(id)}
					all = append(all, r)
					ranked, _ = tn.Insert(ranked, r)
				}
				want, wantRanks := bruteRank(all, fn, n)
				got := tn.Ranks(nil, ranked)
				if len(ranked) != len(want) {
					t.Fatalf("%s n=%d seed %d: %d rows kept, want %d", fn, n, seed, len(ranked), len(want))
				}
				for i := range want {
					if ranked[i][2].I != want[i][2].I || got[i] != wantRanks[i] {
						t.Fatalf("%s n=%d seed %d: row %d is id %d rank %d, want id %d rank %d",
							fn, n, seed, i, ranked[i][2].I, got[i], want[i][2].I, wantRanks[i])
					}
				}
			}
		}
	}
}

// bruteRank sorts rows by their second value, descending, ties in
// arrival order, and keeps those ranked at most n by fn.
func bruteRank(rows []sqlrow.Row, fn string, n int) ([]sqlrow.Row, []int64) {
	sorted := slices.Clone(rows)
	slices.SortStableFunc(sorted, func(a, b sqlrow.Row) int { return int(b[1].I - a[1].I) })
	var kept []sqlrow.Row
	var ranks []int64
	for i, r := range sorted {
		rank := int64(i + 1)
		switch fn {
		case Rank:
			rank = 1
			for _, o := range sorted {
				if o[1].I > r[1].I {
					rank++
				}
			}
		case DenseRank:
			distinct := map[int64]bool{}
			for _, o := range sorted {
				if o[1].I > r[1].I {
					distinct[o[1].I] = true
				}
			}
			rank = int64(len(distinct)) + 1
		}
		if rank <= int64(n) {
			kept, ranks = append(kept, r), append(ranks, rank)
		}
	}
	return kept, ranks
}
