package sqlprog

import (
	"fmt"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// The aggregate functions.
const (
	Count = "count" // COUNT(*) with Arg -1, else COUNT(col): the non-NULL values
	Sum   = "sum"
	Min   = "min"
	Max   = "max"
	Avg   = "avg"
	// CountDistinct is COUNT(DISTINCT col): the distinct non-NULL values.
	CountDistinct = "count_distinct"
	// Wasm is an aggregate function of a Wasm module (wasmagg.go).
	Wasm = "wasm"
)

// Agg is one aggregate function over one column of the input row.
type Agg struct {
	Fn string `json:"fn"`
	// Arg is the input column, or -1 for COUNT(*) and a Wasm aggregate.
	Arg int `json:"arg"`
	// Call is set for Fn wasm: the module's function and its arguments.
	Call *WasmCall `json:"call,omitempty"`
}

// Aggregation is the aggregate function of a SQL window operator. Its
// input records are encoded rows of the types Input whose first Keys values
// are the group's key; its accumulator is an encoded row (Acc); a window
// that fires emits the row key..., window_start, window_end, result... with
// one result per Agg (Output).
type Aggregation struct {
	Input []sqlrow.Type `json:"input"`
	Keys  int           `json:"keys"`
	Aggs  []Agg         `json:"aggs"`
	// Retracts makes a sqlGroup emit, for a key that had a row, the old
	// row with a last BOOLEAN FALSE before the new one with TRUE, for an
	// aggregate over its result (Retracted).
	Retracts bool `json:"retracts,omitempty"`
	// Retracted says each input row ends with a BOOLEAN: TRUE adds the row,
	// FALSE takes it out again (COUNT, SUM and AVG only).
	Retracted bool `json:"retracted,omitempty"`
	// FinalAt, when set, makes a sqlGroup final at a bound (final.go):
	// the key value at this index is the time after which no row of the
	// group can come, and the group's row is emitted once, then.
	FinalAt *int `json:"finalAt,omitempty"`
}

// ParseAggregation reads an aggregation from its JSON form and checks it.
func ParseAggregation(s string) (*Aggregation, error) {
	var a Aggregation
	if err := strictJSON(s, &a); err != nil {
		return nil, err
	}
	if err := a.Check(); err != nil {
		return nil, err
	}
	return &a, nil
}

// String returns the aggregation's JSON form.
func (a *Aggregation) String() string {
	return marshal(a)
}

// Check verifies the aggregation: the key within the input, every
// function known and applied to a column of a type it takes.
func (a *Aggregation) Check() error {
	if a.Keys < 0 || a.Keys > len(a.Input) {
		return fmt.Errorf("keys: %d of a row of %d", a.Keys, len(a.Input))
	}
	if a.Retracted && (len(a.Input) == 0 || a.Input[len(a.Input)-1] != sqlrow.Boolean) {
		return fmt.Errorf("retracted: the input's last value is the BOOLEAN that retracts")
	}
	if err := a.checkFinal(); err != nil {
		return err
	}
	for i, g := range a.Aggs {
		if a.Retracted && (g.Call != nil || (g.Fn != Count && g.Fn != Sum && g.Fn != Avg)) {
			return fmt.Errorf("aggs[%d]: %s cannot take a row out again (over an updating result: COUNT, SUM and AVG)", i, g.Fn)
		}
		if g.Fn == Wasm || g.Call != nil {
			if err := a.checkWasm(g); err != nil {
				return fmt.Errorf("aggs[%d]: %w", i, err)
			}
			continue
		}
		if _, err := ResultType(g.Fn, a.argType(g)); err != nil {
			return fmt.Errorf("aggs[%d]: %w", i, err)
		}
		if g.Arg < -1 || g.Arg >= len(a.Input) || (g.Arg == -1 && g.Fn != Count) {
			return fmt.Errorf("aggs[%d]: %s of column %d of a row of %d", i, g.Fn, g.Arg, len(a.Input))
		}
	}
	return nil
}

func (a *Aggregation) argType(g Agg) sqlrow.Type {
	if g.Arg < 0 || g.Arg >= len(a.Input) {
		return sqlrow.BigInt
	}
	return a.Input[g.Arg]
}

// ResultType returns the type of fn over a column of type t: BIGINT for
// COUNT, DOUBLE for AVG, t for the others (SUM and AVG take numbers only).
func ResultType(fn string, t sqlrow.Type) (sqlrow.Type, error) {
	switch fn {
	case Count, CountDistinct:
		return sqlrow.BigInt, nil
	case Min, Max:
		return t, nil
	case Sum, Avg:
		if t != sqlrow.BigInt && t != sqlrow.Double {
			return 0, fmt.Errorf("%s wants a number, got %s", fn, t)
		}
		if fn == Avg {
			return sqlrow.Double, nil
		}
		return t, nil
	}
	return 0, fmt.Errorf("unknown aggregate function %q (want count, count_distinct, sum, min, max or avg)", fn)
}

// Output returns the types of the rows a firing window emits.
func (a *Aggregation) Output() []sqlrow.Type {
	out := append([]sqlrow.Type{}, a.Input[:a.Keys]...)
	out = append(out, sqlrow.BigInt, sqlrow.BigInt)
	for _, g := range a.Aggs {
		t, _ := ResultType(g.Fn, a.argType(g))
		if g.Fn == Wasm {
			t = g.Call.Returns
		}
		out = append(out, t)
	}
	return out
}

// accWidth is how many values of the accumulator g takes: AVG keeps a sum
// and a count, the others one value.
func accWidth(g Agg) int {
	if g.Fn == Avg {
		return 2
	}
	return 1
}

// AccLen returns the number of values of an accumulator.
func (a *Aggregation) AccLen() int {
	n := 0
	for _, g := range a.Aggs {
		n += accWidth(g)
	}
	return n
}

// NewAcc returns the accumulator of an empty group: counts of 0, every
// other value NULL.
func (a *Aggregation) NewAcc() sqlrow.Row {
	acc := make(sqlrow.Row, 0, a.AccLen())
	for _, g := range a.Aggs {
		switch g.Fn {
		case Count:
			acc = append(acc, sqlrow.Int(0))
		case Avg:
			acc = append(acc, sqlrow.Float(0), sqlrow.Int(0))
		case CountDistinct:
			acc = append(acc, sqlrow.Str(""))
		default:
			acc = append(acc, sqlrow.Value{})
		}
	}
	return acc
}

// Add folds the input row in into acc.
func (a *Aggregation) Add(acc, in sqlrow.Row) error {
	j := 0
	for _, g := range a.Aggs {
		var v sqlrow.Value
		if g.Arg >= 0 {
			v = in[g.Arg]
		} else {
			v = sqlrow.Int(1) // COUNT(*) counts every row
		}
		if !v.IsNull() && g.Fn != Wasm {
			var err error
			if a.Retracted && !in[len(in)-1].True() {
				err = unfold(g.Fn, acc[j:j+accWidth(g)], v)
			} else {
				err = fold(g.Fn, acc[j:j+accWidth(g)], v, sqlrow.Int(1))
			}
			if err != nil {
				return err
			}
		}
		j += accWidth(g)
	}
	return nil
}

// Merge folds the accumulator other into acc.
func (a *Aggregation) Merge(acc, other sqlrow.Row) error {
	j := 0
	for _, g := range a.Aggs {
		w := accWidth(g)
		o := other[j : j+w]
		var err error
		switch g.Fn {
		case Count:
			acc[j], err = add(acc[j], o[0])
		case Avg:
			if o[1].I > 0 {
				err = fold(Avg, acc[j:j+2], o[0], o[1])
			}
		case CountDistinct:
			acc[j], err = mergeSets(acc[j], o[0])
		case Wasm:
			// NB: the operator merges a Wasm function's accumulators,
			// in one call for many groups (host/sqlop).
		default:
			if !o[0].IsNull() {
				err = fold(g.Fn, acc[j:j+1], o[0], sqlrow.Int(1))
			}
		}
		if err != nil {
			return err
		}
		j += w
	}
	return nil
}

// fold adds the non-NULL v (a count n of rows for AVG and COUNT) to the
// accumulator values s of fn.
func fold(fn string, s sqlrow.Row, v, n sqlrow.Value) error {
	var err error
	switch fn {
	case Count:
		s[0], err = add(s[0], n)
	case Sum:
		if s[0].IsNull() {
			s[0] = v
		} else {
			s[0], err = add(s[0], v)
		}
	case Min:
		if s[0].IsNull() || sqlexpr.Compare(v, s[0]) < 0 {
			s[0] = v
		}
	case Max:
		if s[0].IsNull() || sqlexpr.Compare(v, s[0]) > 0 {
			s[0] = v
		}
	case Avg:
		s[0] = sqlrow.Float(s[0].F + v.AsFloat())
		s[1], err = add(s[1], n)
	case CountDistinct:
		s[0], err = mergeSets(s[0], sqlrow.Str(string(sqlrow.AppendValue(nil, v))))
	}
	return err
}

// unfold takes the non-NULL v out of the accumulator values s of fn
// (COUNT, SUM or AVG), which once folded it in.
func unfold(fn string, s sqlrow.Row, v sqlrow.Value) error {
	var err error
	switch fn {
	case Count:
		s[0], err = add(s[0], sqlrow.Int(-1))
	case Sum:
		e := sqlexpr.Expr{Op: sqlexpr.OpSub, Args: []*sqlexpr.Expr{sqlexpr.Lit(s[0]), sqlexpr.Lit(v)}}
		s[0], err = e.Eval(nil)
	case Avg:
		s[0] = sqlrow.Float(s[0].F - v.AsFloat())
		s[1], err = add(s[1], sqlrow.Int(-1))
	default:
		err = fmt.Errorf("%s cannot take a row out again", fn)
	}
	return err
}

func add(a, b sqlrow.Value) (sqlrow.Value, error) {
	e := sqlexpr.Expr{Op: sqlexpr.OpAdd, Args: []*sqlexpr.Expr{sqlexpr.Lit(a), sqlexpr.Lit(b)}}
	return e.Eval(nil)
}

// Result returns the row a window emits: its key values, its start and
// end, and each function's result over the accumulator.
func (a *Aggregation) Result(key sqlrow.Row, start, end int64, acc sqlrow.Row) sqlrow.Row {
	out := append(sqlrow.Row{}, key...)
	out = append(out, sqlrow.Int(start), sqlrow.Int(end))
	j := 0
	for _, g := range a.Aggs {
		switch {
		case g.Fn == Avg && acc[j+1].I == 0:
			out = append(out, sqlrow.Value{})
		case g.Fn == Avg:
			out = append(out, sqlrow.Float(acc[j].F/float64(acc[j+1].I)))
		case g.Fn == CountDistinct:
			n, _ := setLen(acc[j].S)
			out = append(out, sqlrow.Int(int64(n)))
		default:
			out = append(out, acc[j])
		}
		j += accWidth(g)
	}
	return out
}

// GroupOutput returns the types of the rows a GROUP BY without a window
// emits: key..., result....
func (a *Aggregation) GroupOutput() []sqlrow.Type {
	out := a.Output()
	return append(out[:a.Keys:a.Keys], out[a.Keys+2:]...)
}

// GroupResult returns the row a GROUP BY without a window emits for a key:
// its key values and each function's result.
func (a *Aggregation) GroupResult(key, acc sqlrow.Row) sqlrow.Row {
	r := a.Result(key, 0, 0, acc)
	return append(r[:a.Keys:a.Keys], r[a.Keys+2:]...)
}
