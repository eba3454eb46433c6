package sqlop

import (
	"context"
	"fmt"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/window"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// WindowTopN is a SQL window Top-N: a window.Function whose accumulator is
// the window's ranked rows (sqlprog.TopN, encoded one after the other)
// and which, when the window fires, emits each of them as the row
// input..., window_start, window_end, rank, stamped with the window's last
// instant. A window's result is final, so unlike the updating TopN it
// emits each row once and never retracts.
type WindowTopN struct {
	Rank *sqlprog.TopN

	ranks []int64
}

var _ window.Function = (*WindowTopN)(nil)

// Aggregate implements window.Function.
func (w *WindowTopN) Aggregate() bool { return true }

// Add implements window.Function.
func (w *WindowTopN) Add(ctx context.Context, groups []window.AddGroup) ([][]byte, error) {
	out := make([][]byte, len(groups))
	for i, g := range groups {
		ranked, err := w.decode(g.Acc)
		if err != nil {
			return nil, err
		}
		for _, e := range g.Elems {
			// NB: DecodeRow copies what it reads, so the row outlives the batch.
			row, err := sqlrow.DecodeRow(nil, e.Value, len(w.Rank.Input))
			if err != nil {
				return nil, fmt.Errorf("sql window top-n: a record: %w", err)
			}
			ranked, _ = w.Rank.Insert(ranked, row)
		}
		out[i] = encodeRows(ranked)
	}
	return out, nil
}

// Merge implements window.Function.
func (w *WindowTopN) Merge(ctx context.Context, groups [][][]byte) ([][]byte, error) {
	out := make([][]byte, len(groups))
	for i, accs := range groups {
		var ranked []sqlrow.Row
		for _, b := range accs {
			rows, err := w.decode(b)
			if err != nil {
				return nil, err
			}
			for _, r := range rows {
				ranked, _ = w.Rank.Insert(ranked, r)
			}
		}
		out[i] = encodeRows(ranked)
	}
	return out, nil
}

// Fire implements window.Function.
func (w *WindowTopN) Fire(ctx context.Context, groups []window.FireGroup, out *record.Batch) error {
	var buf []byte
	for _, g := range groups {
		ranked, err := w.decode(g.Acc)
		if err != nil {
			return err
		}
		w.ranks = w.Rank.Ranks(w.ranks[:0], ranked)
		for i, row := range ranked {
			buf = sqlrow.AppendRow(buf[:0], row)
			buf = sqlrow.AppendValue(buf, sqlrow.Int(g.W.Start))
			buf = sqlrow.AppendValue(buf, sqlrow.Int(g.W.End))
			buf = sqlrow.AppendValue(buf, sqlrow.Int(w.ranks[i]))
			out.Append(g.Key, buf, g.W.MaxTimestamp())
		}
	}
	return nil
}

// decode returns the ranked rows of an accumulator.
func (w *WindowTopN) decode(b []byte) ([]sqlrow.Row, error) {
	rows, err := decodeRows(b, len(w.Rank.Input))
	if err != nil {
		return nil, fmt.Errorf("sql window top-n: an accumulator: %w", err)
	}
	return rows, nil
}

// encodeRows encodes rows one after the other.
func encodeRows(rows []sqlrow.Row) []byte {
	var b []byte
	for _, r := range rows {
		b = sqlrow.AppendRow(b, r)
	}
	return b
}

// decodeRows decodes rows of n values each, one after the other.
func decodeRows(b []byte, n int) ([]sqlrow.Row, error) {
	var rows []sqlrow.Row
	for len(b) > 0 {
		size, err := sqlrow.PrefixLen(b, n)
		if err != nil {
			return nil, err
		}
		row, err := sqlrow.DecodeRow(nil, b[:size], n)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
		b = b[size:]
	}
	return rows, nil
}
