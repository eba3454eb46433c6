package sqlprog

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// TestOverResults folds frames of (x BIGINT) rows, the current row last,
// worked out by hand: each aggregate reads its own last Preceding+1 rows
// and skips NULLs.
func TestOverResults(t *testing.T) {
	o := &Over{Input: []sqlrow.Type{sqlrow.BigInt, sqlrow.BigInt}, Time: 0, Order: []SortKey{{Col: 0}},
		Aggs: []OverAgg{{Fn: Sum, Arg: 1, Preceding: 2}, {Fn: Avg, Arg: 1, Preceding: 1}, {Fn: Count, Arg: -1, Preceding: 3},
			{Fn: Count, Arg: 1, Preceding: 3}, {Fn: Min, Arg: 1, Preceding: 0}, {Fn: Max, Arg: 1, Preceding: 3}}}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	if o.Frame() != 4 {
		t.Errorf("frame %d, want 4", o.Frame())
	}
	null := sqlrow.Value{}
	for _, tt := range []struct {
		xs   []sqlrow.Value
		want string
	}{
		{[]sqlrow.Value{sqlrow.Int(5)}, "5,5.0,1,1,5,5"},
		{[]sqlrow.Value{sqlrow.Int(5), sqlrow.Int(7)}, "12,6.0,2,2,7,7"},
		{[]sqlrow.Value{sqlrow.Int(9), sqlrow.Int(5), sqlrow.Int(7), sqlrow.Int(2)}, "14,4.5,4,4,2,9"},
		{[]sqlrow.Value{sqlrow.Int(9), sqlrow.Int(5), sqlrow.Int(7), null}, "12,7.0,4,3,,9"},
		{[]sqlrow.Value{null, null}, ",,2,0,,"},
	} {
		var frame []sqlrow.Row
		for _, x := range tt.xs {
			frame = append(frame, o.Args(nil, sqlrow.Row{sqlrow.Int(0), x}))
		}
		got, err := o.Results(nil, frame, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(sqlrow.AppendCSV(nil, got)); s != tt.want {
			t.Errorf("frame %v: %s, want %s", tt.xs, s, tt.want)
		}
	}
}

func TestOverCheck(t *testing.T) {
	good := func() *Over {
		return &Over{Input: []sqlrow.Type{sqlrow.Varchar, sqlrow.Timestamp, sqlrow.Varchar}, Keys: 1, Time: 1,
			Order: []SortKey{{Col: 1}, {Col: 2}}, Aggs: []OverAgg{{Fn: Max, Arg: 2, Preceding: 3}}}
	}
	if err := good().Check(); err != nil {
		t.Fatalf("a good over: %v", err)
	}
	for _, tt := range []struct {
		name string
		edit func(*Over)
		want string
	}{
		{"time a string", func(o *Over) { o.Time, o.Order[0].Col = 2, 2 }, "time: column 2 is a VARCHAR"},
		{"order not by time", func(o *Over) { o.Order = o.Order[1:] }, "the first sort key is the time"},
		{"descending", func(o *Over) { o.Order[0].Desc = true }, "the first sort key is the time, ascending"},
		{"sum of a string", func(o *Over) { o.Aggs[0].Fn = Sum }, "sum wants a number"},
		{"count distinct", func(o *Over) { o.Aggs[0].Fn = CountDistinct }, "count_distinct over a ROWS frame is not supported"},
		{"star", func(o *Over) { o.Aggs[0].Arg = -1 }, "max of column -1"},
		{"too far", func(o *Over) { o.Aggs[0].Preceding = MaxPreceding + 1 }, "preceding: want 0 to 10000"},
		{"no aggs", func(o *Over) { o.Aggs = nil }, "aggs: none"},
	} {
		o := good()
		tt.edit(o)
		if err := o.Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	o, err := ParseOver(good().String())
	if err != nil || o.String() != good().String() {
		t.Errorf("round trip: %v, %v", o, err)
	}
}

// TestOverRunning checks the UNBOUNDED PRECEDING aggregates: Running folds
// them alone, and Results takes their values from its accumulator, between
// the framed ones.
func TestOverRunning(t *testing.T) {
	o := &Over{Input: []sqlrow.Type{sqlrow.BigInt, sqlrow.BigInt}, Time: 0, Order: []SortKey{{Col: 0}},
		Aggs: []OverAgg{{Fn: Sum, Arg: 1, Preceding: Unbounded}, {Fn: Max, Arg: 1, Preceding: 0}, {Fn: Count, Arg: -1, Preceding: Unbounded}}}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	run := o.Running()
	if len(run.Aggs) != 2 || run.Aggs[0] != (Agg{Fn: Sum, Arg: 0}) || run.Aggs[1] != (Agg{Fn: Count, Arg: -1}) {
		t.Fatalf("running %+v, want SUM of the first argument and COUNT(*)", run.Aggs)
	}
	acc := run.NewAcc()
	var got []string
	for _, x := range []int64{4, 9, 2} {
		args := o.Args(nil, sqlrow.Row{sqlrow.Int(0), sqlrow.Int(x)})
		if err := run.Add(acc, args); err != nil {
			t.Fatal(err)
		}
		r, err := o.Results(nil, []sqlrow.Row{args}, acc)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(sqlrow.AppendCSV(nil, r)))
	}
	if want := []string{"4,4,1", "13,9,2", "15,2,3"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
}
