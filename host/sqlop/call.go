package sqlop

import (
	"context"
	"fmt"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// Function is the Wasm function a Call runs: a map, one output record per
// input record, in order (a *udf.Instance). Process appends to out; the
// records of in and out are the caller's once it returns.
type Function interface {
	Process(ctx context.Context, in, out *record.Batch) error
	Close(ctx context.Context) error
}

// Call runs a program that calls a Wasm function (prog.IsCall): it
// computes every row's arguments, calls the function once for the whole
// batch, and writes each row with the function's result appended; for a
// table function (prog.Rows), each row once per result row, or not at all.
// It is used by one task goroutine.
type Call struct {
	uid       string
	prog      *sqlprog.Program
	fn        Function
	vals      sqlrow.Row
	row       []byte
	args, res record.Batch
	buf       []byte
	rows      [][]byte
}

// NewCall returns the operator uid that runs prog, a call of fn, which it
// owns and closes.
func NewCall(uid string, prog *sqlprog.Program, fn Function) *Call {
	return &Call{uid: uid, prog: prog, fn: fn}
}

// Process appends to out, for every record of in, its row with the
// function's result for it. A result that is not one value of the
// function's type, or a count of results that is not the count of rows,
// fails the batch.
func (o *Call) Process(ctx context.Context, in, out *record.Batch) error {
	if len(in.Records) == 0 {
		return nil
	}
	o.args.Reset()
	o.res.Reset()
	for i := range in.Records {
		r := &in.Records[i]
		row, err := o.prog.Decode(o.vals, r.Value)
		if err != nil {
			return fmt.Errorf("sql operator %s: %w", o.uid, err)
		}
		o.vals = row
		o.buf, _, err = o.prog.Run(row, o.buf[:0])
		if err != nil {
			return fmt.Errorf("sql operator %s: %w", o.uid, err)
		}
		o.args.Append(r.Key, o.buf, r.Timestamp)
	}
	if err := o.fn.Process(ctx, &o.args, &o.res); err != nil {
		return fmt.Errorf("sql operator %s: %w", o.uid, err)
	}
	if len(o.res.Records) != len(in.Records) {
		return fmt.Errorf("sql operator %s: the function returned %d results for %d rows; a SQL function is a map, one result per row", o.uid, len(o.res.Records), len(in.Records))
	}
	if len(o.prog.Rows) > 0 {
		return o.writeRows(in, out)
	}
	for i := range in.Records {
		r, v := &in.Records[i], o.res.Records[i].Value
		if err := o.prog.CheckResult(v); err != nil {
			return fmt.Errorf("sql operator %s: row %d of the batch: %w", o.uid, i, err)
		}
		o.row = append(append(o.row[:0], r.Value...), v...)
		out.Append(r.Key, o.row, r.Timestamp)
	}
	return nil
}

// writeRows writes, for each input row, one row per row a table function
// returned for it: the input row with the function's row appended.
func (o *Call) writeRows(in, out *record.Batch) error {
	for i := range in.Records {
		r := &in.Records[i]
		var err error
		if o.rows, err = o.prog.SplitRows(o.rows[:0], o.res.Records[i].Value); err != nil {
			return fmt.Errorf("sql operator %s: row %d of the batch: %w", o.uid, i, err)
		}
		for _, fr := range o.rows {
			o.row = append(append(o.row[:0], r.Value...), fr...)
			out.Append(r.Key, o.row, r.Timestamp)
		}
	}
	return nil
}

// Close closes the function.
func (o *Call) Close(ctx context.Context) error { return o.fn.Close(ctx) }
