package sqlop

import (
	"context"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// fakeFunction stands for a module's map function: it counts its calls
// and answers each argument row with what answer returns.
type fakeFunction struct {
	calls  int
	answer func(args []byte) [][]byte
}

func (f *fakeFunction) Process(_ context.Context, in, out *record.Batch) error {
	f.calls++
	for _, r := range in.Records {
		for _, v := range f.answer(r.Value) {
			out.Append(nil, v, 0)
		}
	}
	return nil
}

func (f *fakeFunction) Close(context.Context) error { return nil }

// callProgram calls a function of (a + 1) over rows of (a BIGINT, s
// VARCHAR) that returns a BIGINT.
func callProgram(t *testing.T) *sqlprog.Program {
	t.Helper()
	plus, _ := sqlexpr.New(sqlexpr.OpAdd, "", 0, sqlexpr.Col(0, sqlrow.BigInt), sqlexpr.Lit(sqlrow.Int(1)))
	p := &sqlprog.Program{In: sqlprog.FormatRow, Columns: []sqlprog.Column{{Name: "a", Type: sqlrow.BigInt}, {Name: "s", Type: sqlrow.Varchar}},
		Select: []*sqlexpr.Expr{plus}, Names: []string{"x"}, Out: sqlprog.FormatRow, Returns: sqlrow.BigInt}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

func rowBytes(vs ...sqlrow.Value) []byte { return sqlrow.AppendRow(nil, vs) }

func TestCallAppendsResults(t *testing.T) {
	// The function doubles its argument, and answers NULL for 0.
	fn := &fakeFunction{answer: func(args []byte) [][]byte {
		v, _, _ := sqlrow.DecodeValue(args)
		if v.I == 0 {
			return [][]byte{{0}}
		}
		return [][]byte{sqlrow.AppendValue(nil, sqlrow.Int(v.I*2))}
	}}
	op := NewCall("q", callProgram(t), fn)
	var in, out record.Batch
	in.Append([]byte("k"), rowBytes(sqlrow.Int(4), sqlrow.Str("x")), 7)
	in.Append(nil, rowBytes(sqlrow.Int(-1), sqlrow.Value{}), 8)
	if err := op.Process(context.Background(), &in, &out); err != nil {
		t.Fatal(err)
	}
	if fn.calls != 1 {
		t.Errorf("%d calls of the function for one batch, want 1", fn.calls)
	}
	want := []struct {
		key  string
		row  []byte
		time int64
	}{
		{"k", rowBytes(sqlrow.Int(4), sqlrow.Str("x"), sqlrow.Int(10)), 7},
		{"", rowBytes(sqlrow.Int(-1), sqlrow.Value{}, sqlrow.Value{}), 8},
	}
	if len(out.Records) != len(want) {
		t.Fatalf("%d records out, want %d", len(out.Records), len(want))
	}
	for i, w := range want {
		r := out.Records[i]
		if string(r.Key) != w.key || string(r.Value) != string(w.row) || r.Timestamp != w.time {
			t.Errorf("record %d: %q %x @%d, want %q %x @%d", i, r.Key, r.Value, r.Timestamp, w.key, w.row, w.time)
		}
	}
}

func TestCallRefusesBadResults(t *testing.T) {
	tests := []struct {
		name   string
		answer [][]byte
		want   string
	}{
		{"none", nil, "returned 0 results for 1 rows"},
		{"two", [][]byte{{0}, {0}}, "returned 2 results for 1 rows"},
		{"wrong type", [][]byte{sqlrow.AppendValue(nil, sqlrow.Str("x"))}, "the result is a VARCHAR, the function returns BIGINT"},
		{"trailing bytes", [][]byte{{0, 0}}, "1 bytes after its value"},
		{"not a value", [][]byte{{9}}, "does not decode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			op := NewCall("q", callProgram(t), &fakeFunction{answer: func([]byte) [][]byte { return tc.answer }})
			var in, out record.Batch
			in.Append(nil, rowBytes(sqlrow.Int(1), sqlrow.Str("s")), 0)
			err := op.Process(context.Background(), &in, &out)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "sql operator q") {
				t.Errorf("got %v, want an error of operator q saying %q", err, tc.want)
			}
		})
	}
}

// TestCallWritesATableFunctionsRows calls a table function that returns,
// for an argument n, the rows (i, 'x') for i = 1 ... n (none for n <= 0 or
// NULL): each input row is written once per result row, with it
// appended, and one call serves the batch.
func TestCallWritesATableFunctionsRows(t *testing.T) {
	fn := &fakeFunction{answer: func(args []byte) [][]byte {
		v, _, _ := sqlrow.DecodeValue(args)
		var rows []byte
		for i := int64(1); i <= v.I; i++ {
			rows = sqlrow.AppendRow(rows, sqlrow.Row{sqlrow.Int(i), sqlrow.Str("x")})
		}
		return [][]byte{rows}
	}}
	p := callProgram(t)
	p.Returns, p.Rows = sqlrow.Null, []sqlrow.Type{sqlrow.BigInt, sqlrow.Varchar}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	op := NewCall("q", p, fn)
	var in, out record.Batch
	in.Append(nil, rowBytes(sqlrow.Int(1), sqlrow.Str("a")), 7)  // a + 1 = 2 rows
	in.Append(nil, rowBytes(sqlrow.Int(-1), sqlrow.Str("b")), 8) // none
	in.Append(nil, rowBytes(sqlrow.Int(0), sqlrow.Str("c")), 9)  // 1 row
	if err := op.Process(context.Background(), &in, &out); err != nil {
		t.Fatal(err)
	}
	want := []string{"1,a,1,x@7", "1,a,2,x@7", "0,c,1,x@9"}
	if out.Len() != len(want) || fn.calls != 1 {
		t.Fatalf("%d rows in %d calls, want %d rows in 1", out.Len(), fn.calls, len(want))
	}
	for i, r := range out.Records {
		row, err := sqlrow.DecodeRow(nil, r.Value, 4)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(sqlrow.AppendCSV(nil, row)) + "@" + sqlrow.Int(r.Timestamp).Text(); got != want[i] {
			t.Errorf("row %d: %s, want %s", i, got, want[i])
		}
	}
}
