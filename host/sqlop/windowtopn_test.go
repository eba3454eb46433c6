package sqlop

import (
	"context"
	"slices"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/window"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// TestWindowTopNFires ranks (key VARCHAR, x BIGINT) rows by x descending,
// adding them in two batches and merging two accumulators, and checks the
// rows the window emits when it fires, each with its window and rank,
// worked out by hand for each ranking function.
func TestWindowTopNFires(t *testing.T) {
	tests := []struct {
		fn   string
		want []string
	}{
		{sqlprog.RowNumber, []string{"a,9,0,10,1@9", "a,7,0,10,2@9"}},
		{sqlprog.Rank, []string{"a,9,0,10,1@9", "a,7,0,10,2@9", "a,7,0,10,2@9"}},
		{sqlprog.DenseRank, []string{"a,9,0,10,1@9", "a,7,0,10,2@9", "a,7,0,10,2@9", "a,5,0,10,3@9"}},
	}
	for _, tt := range tests {
		t.Run(tt.fn, func(t *testing.T) {
			rank := &sqlprog.TopN{Input: []sqlrow.Type{sqlrow.Varchar, sqlrow.BigInt}, Keys: 1,
				Order: []sqlprog.SortKey{{Col: 1, Desc: true}}, N: 2, Fn: tt.fn}
			if tt.fn == sqlprog.DenseRank {
				rank.N = 3
			}
			w := &WindowTopN{Rank: rank}
			ctx := context.Background()
			add := func(acc []byte, xs ...int64) []byte {
				g := window.AddGroup{Key: []byte("a"), Acc: acc, HasAcc: acc != nil}
				for _, x := range xs {
					g.Elems = append(g.Elems, window.Elem{Value: sqlrow.AppendRow(nil, sqlrow.Row{sqlrow.Str("a"), sqlrow.Int(x)})})
				}
				out, err := w.Add(ctx, []window.AddGroup{g})
				if err != nil {
					t.Fatal(err)
				}
				return out[0]
			}
			one := add(add(nil, 5, 7), 1, 9)
			other := add(nil, 7, 3)
			merged, err := w.Merge(ctx, [][][]byte{{one, other}})
			if err != nil {
				t.Fatal(err)
			}
			var out record.Batch
			if err := w.Fire(ctx, []window.FireGroup{{Key: []byte("a"), W: window.W{Start: 0, End: 10}, Acc: merged[0]}}, &out); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range out.Records {
				row, err := sqlrow.DecodeRow(nil, r.Value, 5)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(sqlrow.AppendCSV(nil, row))+"@"+sqlrow.Int(r.Timestamp).Text())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("fired %q, want %q", got, tt.want)
			}
		})
	}
}
