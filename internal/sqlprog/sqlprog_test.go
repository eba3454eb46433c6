package sqlprog

import (
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// TestAggregation folds rows of (key VARCHAR, x BIGINT, y DOUBLE) into two
// accumulators, merges them, and checks results worked out by hand.
func TestAggregation(t *testing.T) {
	a := &Aggregation{
		Input: []sqlrow.Type{sqlrow.Varchar, sqlrow.BigInt, sqlrow.Double},
		Keys:  1,
		Aggs:  []Agg{{Fn: Count, Arg: -1}, {Fn: Count, Arg: 1}, {Fn: Sum, Arg: 1}, {Fn: Min, Arg: 2}, {Fn: Max, Arg: 1}, {Fn: Avg, Arg: 2}, {Fn: Sum, Arg: 2}},
	}
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
	k := sqlrow.Str("k")
	rows := []sqlrow.Row{
		{k, sqlrow.Int(5), sqlrow.Float(1.5)},
		{k, {}, sqlrow.Float(-2)},
		{k, sqlrow.Int(-3), {}},
	}
	acc1, acc2 := a.NewAcc(), a.NewAcc()
	for _, r := range rows[:2] {
		if err := a.Add(acc1, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Add(acc2, rows[2]); err != nil {
		t.Fatal(err)
	}
	// The accumulator crosses state as an encoded row.
	enc := sqlrow.AppendRow(nil, acc1)
	acc1, err := sqlrow.DecodeRow(nil, enc, a.AccLen())
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Merge(acc1, acc2); err != nil {
		t.Fatal(err)
	}
	got := a.Result(sqlrow.Row{k}, 0, 10, acc1)
	// count(*) 3; count(x) 2; sum(x) 5-3=2; min(y) -2; max(x) 5;
	// avg(y) (1.5-2)/2 = -0.25; sum(y) -0.5.
	want := `"k",0,10,3,2,2,-2.0,5,-0.25,-0.5`
	var parts []string
	for _, v := range got {
		parts = append(parts, v.String())
	}
	if s := strings.Join(parts, ","); s != want {
		t.Errorf("got %s, want %s", s, want)
	}
	if ts := a.Output(); len(ts) != len(got) {
		t.Errorf("Output has %d types for rows of %d", len(ts), len(got))
	}
	// An empty group: counts 0, the rest NULL.
	empty := a.Result(nil, 0, 1, a.NewAcc())
	for i, w := range []string{"0", "1", "0", "0", "NULL", "NULL", "NULL", "NULL", "NULL"} {
		if empty[i].String() != w {
			t.Errorf("empty group, value %d: %v, want %s", i, empty[i], w)
		}
	}
}

// TestAggregationRetracted folds rows in and takes some out again (a last
// FALSE), and checks that COUNT, SUM and AVG end as if the taken-out rows
// had never come, worked out by hand.
func TestAggregationRetracted(t *testing.T) {
	a, err := ParseAggregation(`{"input":["VARCHAR","BIGINT","BOOLEAN"],"keys":1,"retracted":true,` +
		`"aggs":[{"fn":"count","arg":-1},{"fn":"sum","arg":1},{"fn":"avg","arg":1},{"fn":"count","arg":1}]}`)
	if err != nil {
		t.Fatal(err)
	}
	acc := a.NewAcc()
	row := func(v sqlrow.Value, live bool) sqlrow.Row { return sqlrow.Row{sqlrow.Str("k"), v, sqlrow.Bool(live)} }
	for _, r := range []sqlrow.Row{
		row(sqlrow.Int(4), true), row(sqlrow.Int(10), true), row(sqlrow.Value{}, true),
		row(sqlrow.Int(4), false), row(sqlrow.Int(7), true), row(sqlrow.Value{}, false),
	} {
		if err := a.Add(acc, r); err != nil {
			t.Fatal(err)
		}
	}
	// Left: 10 and 7.
	got := a.GroupResult(sqlrow.Row{sqlrow.Str("k")}, acc)
	for i, w := range []string{`"k"`, "2", "17", "8.5", "2"} {
		if got[i].String() != w {
			t.Errorf("value %d: %v, want %s", i, got[i], w)
		}
	}
}

func TestAggregationRefused(t *testing.T) {
	for _, s := range []string{
		`{"input":["VARCHAR"],"keys":2,"aggs":[]}`,
		`{"input":["VARCHAR"],"keys":1,"aggs":[{"fn":"sum","arg":0}]}`,
		`{"input":["BIGINT"],"keys":1,"aggs":[{"fn":"median","arg":0}]}`,
		`{"input":["BIGINT"],"keys":1,"aggs":[{"fn":"sum","arg":-1}]}`,
		`{"input":["BIGINT"],"keys":1,"aggs":[{"fn":"max","arg":3}]}`,
		`{"input":["BIGINT"],"keys":1,"extra":1}`,
		`{"input":["BIGINT","BIGINT"],"keys":1,"aggs":[{"fn":"sum","arg":1}],"retracted":true}`,
		`{"input":["BIGINT","BIGINT","BOOLEAN"],"keys":1,"aggs":[{"fn":"max","arg":1}],"retracted":true}`,
	} {
		if _, err := ParseAggregation(s); err == nil {
			t.Errorf("%s: accepted", s)
		}
	}
}

func TestProgram(t *testing.T) {
	cols := []Column{{"a", sqlrow.BigInt}, {"s", sqlrow.Varchar}}
	gt, _ := sqlexpr.New(sqlexpr.OpGt, "", 0, sqlexpr.Col(0, sqlrow.BigInt), sqlexpr.Lit(sqlrow.Int(1)))
	up, _ := sqlexpr.New(sqlexpr.OpCall, "upper", 0, sqlexpr.Col(1, sqlrow.Varchar))
	p := &Program{In: FormatCSV, Columns: cols, Where: gt, Select: []*sqlexpr.Expr{up, sqlexpr.Col(0, sqlrow.BigInt)},
		Names: []string{"u", "a"}, Out: FormatJSON}
	back, err := ParseProgram(p.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ in, out string }{
		{"2,ab", `{"u":"AB","a":2}`},
		{"1,ab", ""},
		{",ab", ""},
	} {
		in, err := back.Decode(nil, []byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		out, ok, err := back.Run(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != tt.out || ok != (tt.out != "") {
			t.Errorf("%s: got %q %v, want %q", tt.in, out, ok, tt.out)
		}
	}
	bad := *p
	bad.Where = sqlexpr.Col(1, sqlrow.Varchar)
	if err := bad.Check(); err == nil {
		t.Error("a VARCHAR WHERE passed Check")
	}
	bad = *p
	bad.Names = bad.Names[:1]
	if err := bad.Check(); err == nil {
		t.Error("a name short passed Check")
	}
}

// TestRetracts runs a retracting join's last program: the op comes from
// the row's last value, and WHERE drops inserts and deletes alike.
func TestRetracts(t *testing.T) {
	cols := []Column{{"a", sqlrow.BigInt}, {"_op", sqlrow.BigInt}}
	gt, _ := sqlexpr.New(sqlexpr.OpGt, "", 0, sqlexpr.Col(0, sqlrow.BigInt), sqlexpr.Lit(sqlrow.Int(1)))
	p := &Program{In: FormatCSV, Columns: cols, Where: gt, Select: []*sqlexpr.Expr{sqlexpr.Col(0, sqlrow.BigInt)},
		Names: []string{"a"}, Out: FormatCSV, Retracts: true}
	back, err := ParseProgram(p.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ in, out string }{
		{"2,0", "insert,2"},
		{"2,1", "delete,2"},
		{"1,1", ""},
		{"1,0", ""},
	} {
		in, err := back.Decode(nil, []byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		out, ok, err := back.Run(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(out)) != tt.out || ok != (tt.out != "") {
			t.Errorf("%s: got %q %v, want %q", tt.in, out, ok, tt.out)
		}
	}
	for name, mutate := range map[string]func(*Program){
		"with changelog": func(p *Program) { p.Changelog = true },
		"rows out":       func(p *Program) { p.Out = FormatRow },
		"no BIGINT flag": func(p *Program) { p.Columns = []Column{cols[0], {"s", sqlrow.Varchar}} },
	} {
		bad := *p
		mutate(&bad)
		if err := bad.Check(); err == nil {
			t.Errorf("%s: passed Check", name)
		}
	}
}

// TestJoinRowsOuter checks the outer fields of a join's rows.
func TestJoinRowsOuter(t *testing.T) {
	for _, tt := range []struct {
		j  JoinRows
		ok bool
	}{
		{JoinRows{Right: 1, Outer: "left", Changelog: true}, true},
		{JoinRows{Right: 1, Left: 2, Outer: "full"}, true},
		{JoinRows{Right: 1, Outer: "full"}, false},
		{JoinRows{Right: 1, Outer: "middle"}, false},
		{JoinRows{Right: 1, Changelog: true}, false},
		{JoinRows{Right: 1, Outer: "left", Window: 10}, false},
	} {
		_, err := ParseJoinRows(tt.j.String())
		if (err == nil) != tt.ok {
			t.Errorf("%+v: error %v", tt.j, err)
		}
	}
}

// TestCountDistinct counts distinct values across two accumulators that
// share some, with NULLs, which do not count.
func TestCountDistinct(t *testing.T) {
	a := &Aggregation{Input: []sqlrow.Type{sqlrow.Varchar, sqlrow.BigInt}, Aggs: []Agg{{Fn: CountDistinct, Arg: 0}, {Fn: CountDistinct, Arg: 1}}}
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
	acc1, acc2 := a.NewAcc(), a.NewAcc()
	for _, r := range []sqlrow.Row{{sqlrow.Str("x"), sqlrow.Int(1)}, {sqlrow.Str("y"), sqlrow.Int(1)}, {sqlrow.Str("x"), {}}} {
		if err := a.Add(acc1, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []sqlrow.Row{{sqlrow.Str("z"), sqlrow.Int(2)}, {sqlrow.Str("y"), sqlrow.Int(-1)}, {{}, sqlrow.Int(2)}} {
		if err := a.Add(acc2, r); err != nil {
			t.Fatal(err)
		}
	}
	one := a.Result(nil, 0, 1, acc1)
	if one[2] != sqlrow.Int(2) || one[3] != sqlrow.Int(1) {
		t.Errorf("first accumulator: %v, want 2 strings (x, y) and 1 number (1)", one[2:])
	}
	if err := a.Merge(acc1, acc2); err != nil {
		t.Fatal(err)
	}
	// Strings x, y, z; numbers 1, 2, -1.
	got := a.Result(nil, 0, 1, acc1)
	if got[2] != sqlrow.Int(3) || got[3] != sqlrow.Int(3) {
		t.Errorf("merged: %v, want 3 and 3", got[2:])
	}
}

// TestSplitRows splits a table function's result into rows of (BIGINT,
// VARCHAR), and refuses what is not whole rows of those types.
func TestSplitRows(t *testing.T) {
	p := &Program{Rows: []sqlrow.Type{sqlrow.BigInt, sqlrow.Varchar}}
	row := func(vs ...sqlrow.Value) []byte { return sqlrow.AppendRow(nil, vs) }
	two := append(row(sqlrow.Int(1), sqlrow.Str("a")), row(sqlrow.Value{}, sqlrow.Value{})...)
	tests := []struct {
		name string
		b    []byte
		rows int
		err  string
	}{
		{"none", nil, 0, ""},
		{"two, one NULL", two, 2, ""},
		{"half a row", row(sqlrow.Int(1)), 0, "the result ends inside a row, after 1 of its 2 values"},
		{"a wrong type", row(sqlrow.Int(1), sqlrow.Int(2)), 0, "column 2 of a result row is a BIGINT, the function returns VARCHAR"},
		{"not a value", []byte{9}, 0, "the result does not decode as SQL rows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := p.SplitRows(nil, tc.b)
			switch {
			case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
				t.Errorf("got %v, want %s...", err, tc.err)
			case tc.err == "" && (err != nil || len(rows) != tc.rows):
				t.Errorf("got %d rows, %v; want %d", len(rows), err, tc.rows)
			}
		})
	}
	rows, _ := p.SplitRows(nil, two)
	if len(rows) == 2 && string(rows[1]) != string(row(sqlrow.Value{}, sqlrow.Value{})) {
		t.Errorf("the second row is %x", rows[1])
	}
}
