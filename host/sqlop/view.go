package sqlop

import (
	"context"
	"fmt"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// View keeps a SQL materialized view (prog.View) in keyed state: for each
// record, a changed key's new row of a GROUP BY, it stores the SELECT list
// as a JSON object under the record's key, or deletes the key's row when
// HAVING does not hold. The state is queryable under the view's name and
// checkpointed, restored and rescaled as any keyed state. It writes no
// records. It is used by one task goroutine; lookups reach the state
// between two batches, through the task.
type View struct {
	uid  string
	prog *sqlprog.Program
	rows udf.ValueState
	info udf.StateInfo

	in, out sqlrow.Row
	buf     []byte
}

// NewView returns the operator uid that keeps prog's view in state.
func NewView(uid string, prog *sqlprog.Program, state udf.Keyed) (*View, error) {
	ns := uid + "/view"
	rows, err := state.Value(ns)
	if err != nil {
		return nil, fmt.Errorf("sql view %s: %w", uid, err)
	}
	info := udf.StateInfo{Name: prog.View, Namespace: ns, Kind: udf.KindValue, Type: udf.TypeJSON, Queryable: true}
	return &View{uid: uid, prog: prog, rows: rows, info: info}, nil
}

// Process applies every record of in to the view.
func (v *View) Process(ctx context.Context, in, _ *record.Batch) error {
	for i := range in.Records {
		if err := v.apply(&in.Records[i]); err != nil {
			return fmt.Errorf("sql view %s: %w", v.uid, err)
		}
	}
	return nil
}

func (v *View) apply(r *record.Record) error {
	row, err := v.prog.Decode(v.in, r.Value)
	if err != nil {
		return err
	}
	v.in = row
	if w := v.prog.Where; w != nil {
		ok, err := w.Eval(row)
		if err != nil {
			return fmt.Errorf("HAVING: %w", err)
		}
		if !ok.True() {
			return v.rows.Delete(r.KeyGroup, r.Key)
		}
	}
	v.out = v.out[:0]
	for i, e := range v.prog.Select {
		x, err := e.Eval(row)
		if err != nil {
			return fmt.Errorf("%s: %w", v.prog.Names[i], err)
		}
		v.out = append(v.out, x)
	}
	v.buf = sqlrow.AppendJSON(v.buf[:0], v.prog.Names, v.out)
	return v.rows.Put(r.KeyGroup, r.Key, v.buf)
}

// States declares the view's state, queryable under its name.
func (v *View) States() []udf.StateInfo { return []udf.StateInfo{v.info} }

// Close implements the task's Operator; the state is the task's.
func (v *View) Close(context.Context) error { return nil }
