package sqlprog

import (
	"fmt"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// Over is the work of a sqlOver operator: aggregates over a ROWS frame of
// each partition's rows, one output row per input row (SQL's
// AGG(x) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN n PRECEDING AND
// CURRENT ROW)). Its input rows are encoded rows of the types Input whose
// first Keys values are the partition; Order is the ORDER BY, whose first
// key is the column Time, the event time (a BIGINT of milliseconds or a
// TIMESTAMP), ascending: the operator applies a partition's rows in that
// order once the watermark passes their time, so that the order does not
// depend on arrival. Each output row is the input row followed by one
// value per Agg.
type Over struct {
	Input []sqlrow.Type `json:"input"`
	Keys  int           `json:"keys"`
	Time  int           `json:"time"`
	Order []SortKey     `json:"order"`
	Aggs  []OverAgg     `json:"aggs"`
}

// OverAgg is one aggregate of an Over: Fn (count, sum, min, max or avg)
// over the column Arg (-1 for COUNT(*)) of the current row and the
// Preceding rows before it in the partition, or all of them for
// Unbounded.
type OverAgg struct {
	Fn        string `json:"fn"`
	Arg       int    `json:"arg"`
	Preceding int    `json:"preceding"`
}

// Unbounded is the Preceding of ROWS BETWEEN UNBOUNDED PRECEDING AND
// CURRENT ROW: a running aggregate over every row of the partition so far,
// kept as an accumulator (Running) rather than a frame of rows.
const Unbounded = -1

// MaxPreceding bounds an OverAgg's Preceding: the frame is kept in state
// and folded for every row.
const MaxPreceding = 10_000

// ParseOver reads an Over from its JSON form and checks it.
func ParseOver(s string) (*Over, error) {
	var o Over
	if err := strictJSON(s, &o); err != nil {
		return nil, err
	}
	if err := o.Check(); err != nil {
		return nil, err
	}
	return &o, nil
}

// String returns the Over's JSON form.
func (o *Over) String() string { return marshal(o) }

// Check verifies the Over: the partition, time and sort columns within
// the input, the time a BIGINT or TIMESTAMP first in the order and
// ascending, every aggregate a built-in one over a column it takes.
func (o *Over) Check() error {
	switch {
	case o.Keys < 0 || o.Keys > len(o.Input):
		return fmt.Errorf("keys: %d of a row of %d", o.Keys, len(o.Input))
	case o.Time < 0 || o.Time >= len(o.Input):
		return fmt.Errorf("time: column %d of a row of %d", o.Time, len(o.Input))
	case o.Input[o.Time] != sqlrow.BigInt && o.Input[o.Time] != sqlrow.Timestamp:
		return fmt.Errorf("time: column %d is a %s, not a BIGINT or TIMESTAMP", o.Time, o.Input[o.Time])
	case len(o.Order) == 0 || o.Order[0].Col != o.Time || o.Order[0].Desc:
		return fmt.Errorf("order: the first sort key is the time, ascending")
	case len(o.Aggs) == 0:
		return fmt.Errorf("aggs: none")
	}
	for i, k := range o.Order {
		if k.Col < 0 || k.Col >= len(o.Input) {
			return fmt.Errorf("order[%d]: column %d of a row of %d", i, k.Col, len(o.Input))
		}
	}
	for i, g := range o.Aggs {
		if g.Fn == CountDistinct || g.Fn == Wasm {
			return fmt.Errorf("aggs[%d]: %s over a ROWS frame is not supported", i, g.Fn)
		}
		if g.Arg < -1 || g.Arg >= len(o.Input) || (g.Arg == -1 && g.Fn != Count) {
			return fmt.Errorf("aggs[%d]: %s of column %d of a row of %d", i, g.Fn, g.Arg, len(o.Input))
		}
		if _, err := ResultType(g.Fn, o.argType(g)); err != nil {
			return fmt.Errorf("aggs[%d]: %w", i, err)
		}
		if g.Preceding < Unbounded || g.Preceding > MaxPreceding {
			return fmt.Errorf("aggs[%d]: preceding: want 0 to %d, or %d for unbounded, got %d", i, MaxPreceding, Unbounded, g.Preceding)
		}
	}
	return nil
}

func (o *Over) argType(g OverAgg) sqlrow.Type {
	if g.Arg < 0 {
		return sqlrow.BigInt
	}
	return o.Input[g.Arg]
}

// Output returns the types of the output rows: the input's, then each
// aggregate's result.
func (o *Over) Output() []sqlrow.Type {
	out := append([]sqlrow.Type{}, o.Input...)
	for _, g := range o.Aggs {
		t, _ := ResultType(g.Fn, o.argType(g))
		out = append(out, t)
	}
	return out
}

// Frame returns how many rows of a partition the frames reach: the
// current one and the most any aggregate reads before it.
func (o *Over) Frame() int {
	n := 0
	for _, g := range o.Aggs {
		n = max(n, g.Preceding) // NB: Unbounded is below every other
	}
	return n + 1
}

// Args returns what the frame keeps of row: each aggregate's argument
// (NULL for COUNT(*)).
func (o *Over) Args(dst, row sqlrow.Row) sqlrow.Row {
	dst = dst[:0]
	for _, g := range o.Aggs {
		if g.Arg < 0 {
			dst = append(dst, sqlrow.Value{})
		} else {
			dst = append(dst, row[g.Arg])
		}
	}
	return dst
}

// Running returns the aggregation of the Unbounded aggregates over a
// frame's rows (Args), whose accumulator a partition keeps; nil for none.
func (o *Over) Running() *Aggregation {
	var a *Aggregation
	for i, g := range o.Aggs {
		if g.Preceding != Unbounded {
			continue
		}
		if a == nil {
			a = &Aggregation{Input: o.frameTypes()}
		}
		arg := i
		if g.Arg < 0 {
			arg = -1
		}
		a.Aggs = append(a.Aggs, Agg{Fn: g.Fn, Arg: arg})
	}
	return a
}

// Results appends to dst each aggregate's value over frame, a partition's
// last rows' Args, oldest first, the current row last: aggregate i folds
// the last Preceding+1 of them, as a GROUP BY would. An Unbounded one
// takes its value from running, the accumulator of Running with the
// current row folded in.
func (o *Over) Results(dst sqlrow.Row, frame []sqlrow.Row, running sqlrow.Row) (sqlrow.Row, error) {
	var r sqlrow.Row
	if a := o.Running(); a != nil {
		r = a.GroupResult(nil, running)
	}
	for i, g := range o.Aggs {
		if g.Preceding == Unbounded {
			dst, r = append(dst, r[0]), r[1:]
			continue
		}
		one := &Aggregation{Input: o.frameTypes(), Aggs: []Agg{{Fn: g.Fn, Arg: i}}}
		if g.Arg < 0 {
			one.Aggs[0].Arg = -1
		}
		acc := one.NewAcc()
		for _, row := range frame[max(0, len(frame)-1-g.Preceding):] {
			if err := one.Add(acc, row); err != nil {
				return nil, err
			}
		}
		dst = append(dst, one.GroupResult(nil, acc)...)
	}
	return dst, nil
}

// frameTypes returns the types of a frame's rows (Args).
func (o *Over) frameTypes() []sqlrow.Type {
	t := make([]sqlrow.Type, len(o.Aggs))
	for i, g := range o.Aggs {
		t[i] = o.argType(g)
	}
	return t
}

// Sort returns the ranking that orders a partition's rows by Order.
func (o *Over) Sort() *TopN {
	return &TopN{Input: o.Input, Keys: o.Keys, Order: o.Order, N: 1}
}
