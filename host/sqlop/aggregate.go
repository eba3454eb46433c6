package sqlop

import (
	"context"
	"fmt"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/window"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// Aggregate is a SQL window's aggregate function: a window.Function whose
// accumulators are encoded rows (sqlprog.Aggregation.NewAcc) and whose
// results are the rows key..., window_start, window_end, result..., each
// stamped with the window's last instant.
type Aggregate struct {
	Agg *sqlprog.Aggregation

	in, acc, other sqlrow.Row
}

var _ window.Function = (*Aggregate)(nil)

// Aggregate implements window.Function.
func (a *Aggregate) Aggregate() bool { return true }

// Add implements window.Function.
func (a *Aggregate) Add(ctx context.Context, groups []window.AddGroup) ([][]byte, error) {
	out := make([][]byte, len(groups))
	for i, g := range groups {
		acc, err := a.decodeAcc(&a.acc, g.Acc, g.HasAcc)
		if err != nil {
			return nil, err
		}
		for _, e := range g.Elems {
			if a.in, err = sqlrow.DecodeRow(a.in, e.Value, len(a.Agg.Input)); err != nil {
				return nil, fmt.Errorf("sql window: a record: %w", err)
			}
			if err := a.Agg.Add(acc, a.in); err != nil {
				return nil, fmt.Errorf("sql window: %w", err)
			}
		}
		out[i] = sqlrow.AppendRow(nil, acc)
	}
	return out, nil
}

// decodeAcc returns the accumulator b, or a new one when has is false.
func (a *Aggregate) decodeAcc(dst *sqlrow.Row, b []byte, has bool) (sqlrow.Row, error) {
	if !has {
		return a.Agg.NewAcc(), nil
	}
	r, err := sqlrow.DecodeRow(*dst, b, a.Agg.AccLen())
	if err != nil {
		return nil, fmt.Errorf("sql window: an accumulator: %w", err)
	}
	*dst = r
	return r, nil
}

// Merge implements window.Function.
func (a *Aggregate) Merge(ctx context.Context, groups [][][]byte) ([][]byte, error) {
	out := make([][]byte, len(groups))
	for i, accs := range groups {
		acc := a.Agg.NewAcc()
		for _, b := range accs {
			o, err := a.decodeAcc(&a.other, b, true)
			if err != nil {
				return nil, err
			}
			if err := a.Agg.Merge(acc, o); err != nil {
				return nil, fmt.Errorf("sql window: %w", err)
			}
		}
		out[i] = sqlrow.AppendRow(nil, acc)
	}
	return out, nil
}

// Fire implements window.Function.
func (a *Aggregate) Fire(ctx context.Context, groups []window.FireGroup, out *record.Batch) error {
	var buf []byte
	for _, g := range groups {
		key, err := sqlrow.DecodeRow(nil, g.Key, a.Agg.Keys)
		if err != nil {
			return fmt.Errorf("sql window: a key: %w", err)
		}
		acc, err := a.decodeAcc(&a.acc, g.Acc, true)
		if err != nil {
			return err
		}
		buf = sqlrow.AppendRow(buf[:0], a.Agg.Result(key, g.W.Start, g.W.End, acc))
		out.Append(g.Key, buf, g.W.MaxTimestamp())
	}
	return nil
}
