package main

import (
	"strconv"

	floe "github.com/floe-stream/floe/sdk/go"
)

// span is spread's accumulator: how many non-NULL values, and their
// smallest and largest.
type span struct{ N, Min, Max int64 }

func init() {
	// spread is MAX(x) - MIN(x) over the non-NULL values, NULL for none.
	floe.SQLAggregate("spread", floe.JSON[span](), floe.SQLAggregateFunc[span]{
		Create: func() span { return span{} },
		Add: func(s span, a []floe.SQLValue) (span, error) {
			if a[0].IsNull() {
				return s, nil
			}
			return mergeSpans(s, span{1, a[0].Int, a[0].Int}), nil
		},
		Merge: mergeSpans,
		Result: func(s span) (floe.SQLValue, error) {
			if s.N == 0 {
				return floe.SQLValue{}, nil
			}
			return floe.SQLInt(s.Max - s.Min), nil
		},
	})
	// count_above counts the rows whose x is above floor (neither NULL).
	floe.SQLAggregate("count_above", floe.Int64, floe.SQLAggregateFunc[int64]{
		Create: func() int64 { return 0 },
		Add: func(n int64, a []floe.SQLValue) (int64, error) {
			if !a[0].IsNull() && !a[1].IsNull() && a[0].Int > a[1].Int {
				n++
			}
			return n, nil
		},
		Merge:  func(a, b int64) int64 { return a + b },
		Result: func(n int64) (floe.SQLValue, error) { return floe.SQLInt(n), nil },
	})
	// series returns, for a positive n, the rows i = 1 ... n % 5 with tag
	// s || '#' || i (NULL for a NULL s); none for a NULL n or n <= 0.
	floe.SQLTableFunction("series", func(a []floe.SQLValue) ([][]floe.SQLValue, error) {
		if a[0].IsNull() || a[0].Int <= 0 {
			return nil, nil
		}
		var rows [][]floe.SQLValue
		for i := int64(1); i <= a[0].Int%5; i++ {
			tag := floe.SQLValue{}
			if !a[1].IsNull() {
				tag = floe.SQLString(a[1].Str + "#" + strconv.FormatInt(i, 10))
			}
			rows = append(rows, []floe.SQLValue{floe.SQLInt(i), tag})
		}
		return rows, nil
	})
}

func mergeSpans(a, b span) span {
	switch {
	case a.N == 0:
		return b
	case b.N == 0:
		return a
	}
	return span{a.N + b.N, min(a.Min, b.Min), max(a.Max, b.Max)}
}
