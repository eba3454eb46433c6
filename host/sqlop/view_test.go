package sqlop

import (
	"context"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/state"
)

// TestViewKeepsCurrentRows feeds a view of (k VARCHAR, n BIGINT) rows
// with HAVING n < 3 the rows of a GROUP BY and checks what its state holds
// for each key, worked out by hand: the last row's JSON while HAVING
// holds, nothing once it does not.
func TestViewKeepsCurrentRows(t *testing.T) {
	having, _ := sqlexpr.New(sqlexpr.OpLt, "", 0, sqlexpr.Col(1, sqlrow.BigInt), sqlexpr.Lit(sqlrow.Int(3)))
	prog := &sqlprog.Program{In: sqlprog.FormatRow, Columns: []sqlprog.Column{{Name: "_0", Type: sqlrow.Varchar}, {Name: "_1", Type: sqlrow.BigInt}},
		Where: having, Select: []*sqlexpr.Expr{sqlexpr.Col(0, sqlrow.Varchar), sqlexpr.Col(1, sqlrow.BigInt)}, Names: []string{"k", "n"},
		Out: sqlprog.FormatJSON, View: "v"}
	if err := prog.Check(); err != nil {
		t.Fatal(err)
	}
	st := keyed{state.New(memkv.New())}
	v, err := NewView("q", prog, st)
	if err != nil {
		t.Fatal(err)
	}
	var in, out record.Batch
	for _, r := range []struct {
		k string
		n int64
	}{{"a", 1}, {"b", 1}, {"a", 2}, {"b", 3}} {
		in.AppendKeyed([]byte(r.k), sqlrow.AppendRow(nil, sqlrow.Row{sqlrow.Str(r.k), sqlrow.Int(r.n)}), 0, 5)
	}
	if err := v.Process(context.Background(), &in, &out); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("the view wrote %d records, want none", out.Len())
	}
	rows, _ := st.Value("q/view")
	for _, c := range []struct {
		key, want string
		found     bool
	}{{"a", `{"k":"a","n":2}`, true}, {"b", "", false}, {"c", "", false}} {
		got, found, err := rows.Get(5, []byte(c.key))
		if err != nil || found != c.found || string(got) != c.want {
			t.Errorf("key %s: %q found %v (%v), want %q found %v", c.key, got, found, err, c.want, c.found)
		}
	}
	if s := v.States(); len(s) != 1 || s[0].Name != "v" || !s[0].Queryable || s[0].Namespace != "q/view" {
		t.Errorf("declared states %+v, want v, queryable, in q/view", s)
	}
}
