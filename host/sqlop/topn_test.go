package sqlop

import (
	"context"
	"slices"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/state"
)

// TestTopNEmitsChangedRanks ranks (key VARCHAR, x BIGINT) rows by x
// descending, two per key, and checks the ranks each batch emits, worked
// out by hand; the second batch runs on a new operator over the same
// state, as after a restore.
func TestTopNEmitsChangedRanks(t *testing.T) {
	rank := &sqlprog.TopN{Input: []sqlrow.Type{sqlrow.Varchar, sqlrow.BigInt}, Keys: 1,
		Order: []sqlprog.SortKey{{Col: 1, Desc: true}}, N: 2}
	st := keyed{state.New(memkv.New())}
	batch, emitted := keyedRows, func(op *TopN, in *record.Batch) []string { return emittedRows(t, op, in) }
	for _, step := range []struct {
		in   *record.Batch
		want []string
	}{
		// a: 5, then 7 above it (both ranks change), then 1 below both (no
		// change); b: 3 alone.
		{batch([2]any{"a", 5}, [2]any{"b", 3}, [2]any{"a", 7}, [2]any{"a", 1}), []string{"a,7,1@30", "a,5,2@30", "b,3,1@10"}},
		// a: 6 takes rank 2 from 5; b: 2 fills rank 2; a: 0 changes nothing.
		{batch([2]any{"a", 6}, [2]any{"b", 2}, [2]any{"a", 0}), []string{"a,6,2@20", "b,2,2@10"}},
		// Nothing ranks: nothing is emitted.
		{batch([2]any{"a", 6}, [2]any{"b", 1}), nil},
	} {
		o, err := NewTopN("t", rank, st)
		if err != nil {
			t.Fatal(err)
		}
		if got := emitted(o, step.in); !slices.Equal(got, step.want) {
			t.Errorf("emitted %q, want %q", got, step.want)
		}
	}
}

// TestTopNRankRetracts ranks (key VARCHAR, x BIGINT) rows by x descending
// with RANK() <= 2 and checks the retractions (a last FALSE) and inserts
// (TRUE) each batch emits, worked out by hand.
func TestTopNRankRetracts(t *testing.T) {
	rank := &sqlprog.TopN{Input: []sqlrow.Type{sqlrow.Varchar, sqlrow.BigInt}, Keys: 1,
		Order: []sqlprog.SortKey{{Col: 1, Desc: true}}, N: 2, Fn: sqlprog.Rank}
	st := keyed{state.New(memkv.New())}
	for _, step := range []struct {
		in   *record.Batch
		want []string
	}{
		// 5 then 5 again: both rank 1.
		{keyedRows([2]any{"a", 5}, [2]any{"a", 5}), []string{"a,5,1,true", "a,5,1,true"}},
		// 3: rank 3, out. 7: rank 1, the fives move to rank 2.
		{keyedRows([2]any{"a", 3}, [2]any{"a", 7}), []string{"a,5,1,false", "a,5,1,false", "a,7,1,true", "a,5,2,true", "a,5,2,true"}},
		// 9 and 8: ranks 1 and 2; 7 and the fives fall out.
		{keyedRows([2]any{"a", 9}, [2]any{"a", 8}), []string{"a,7,1,false", "a,5,2,false", "a,5,2,false", "a,9,1,true", "a,8,2,true"}},
	} {
		o, err := NewTopN("t", rank, st)
		if err != nil {
			t.Fatal(err)
		}
		var out record.Batch
		if err := o.Process(context.Background(), step.in, &out); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range out.Records {
			row, err := sqlrow.DecodeRow(nil, r.Value, 4)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(sqlrow.AppendCSV(nil, row)))
		}
		if !slices.Equal(got, step.want) {
			t.Errorf("emitted %q, want %q", got, step.want)
		}
	}
}
