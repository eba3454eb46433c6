package floe

import "fmt"

// SQL aggregate and table functions (sdk/ABI.md, "SQL aggregate
// functions" and "SQL table functions").

// SQLAggregateFunc is a SQL aggregate function over accumulators of type
// A, declared in a script with CREATE AGGREGATE: the host keeps one
// accumulator per group (and window), adds each row's arguments to it,
// merges two when session windows merge, and asks for the result when the
// group's row is written. Add and Merge may modify and return their
// argument.
type SQLAggregateFunc[A any] struct {
	Create func() A
	// Add folds one row's arguments (NULLs included) into acc.
	Add   func(acc A, args []SQLValue) (A, error)
	Merge func(a, b A) A
	// Result is the aggregate's value: of the declared RETURNS type, or
	// NULL (SQLValue{}).
	Result func(acc A) (SQLValue, error)
}

// SQLAggregate registers fn as the SQL aggregate function name; c encodes
// its accumulator between calls. It is a window aggregate function whose
// input records are argument rows and whose result is one SQL value.
func SQLAggregate[A any](name string, c Codec[A], fn SQLAggregateFunc[A]) {
	var args []SQLValue
	decode := func(b []byte) (A, error) {
		a, err := c.Decode(b)
		if err != nil {
			return a, fmt.Errorf("accumulator: %w", err)
		}
		return a, nil
	}
	register(name, function{kind: kindAggregate, agg: &aggregate{
		add: func(dst, acc []byte, has bool, recs []Record) ([]byte, error) {
			a := fn.Create()
			var err error
			if has {
				if a, err = decode(acc); err != nil {
					return nil, err
				}
			}
			for _, r := range recs {
				if args, err = DecodeSQLRow(args, r.Value); err != nil {
					return nil, err
				}
				if a, err = fn.Add(a, args); err != nil {
					return nil, err
				}
			}
			return c.Append(dst, a), nil
		},
		merge: func(accs [][]byte) ([]byte, error) {
			m := fn.Create()
			for i, b := range accs {
				a, err := decode(b)
				if err != nil {
					return nil, err
				}
				if i == 0 {
					m = a
				} else {
					m = fn.Merge(m, a)
				}
			}
			return c.Append(nil, m), nil
		},
		result: func(_ []byte, _ Window, acc []byte, out Emitter) error {
			a, err := decode(acc)
			if err != nil {
				return err
			}
			v, err := fn.Result(a)
			if err != nil {
				return err
			}
			out.Emit(AppendSQLValue(nil, v))
			return nil
		},
	}})
}

// SQLTableFunction registers fn as the SQL table function name, declared
// with CREATE FUNCTION ... RETURNS TABLE (...) or RETURNS SETOF type: for
// each row of arguments (NULLs included) fn returns zero or more rows,
// each of the declared columns in order. It is a map function whose
// output record holds the rows back to back.
func SQLTableFunction(name string, fn func(args []SQLValue) ([][]SQLValue, error)) {
	var args []SQLValue
	var out []byte
	Map(name, func(rec []byte) ([]byte, error) {
		var err error
		if args, err = DecodeSQLRow(args, rec); err != nil {
			return nil, err
		}
		rows, err := fn(args)
		if err != nil {
			return nil, err
		}
		out = out[:0]
		for _, row := range rows {
			for _, v := range row {
				out = AppendSQLValue(out, v)
			}
		}
		return out, nil
	})
}
