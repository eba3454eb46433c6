package sqlop

import (
	"context"
	"fmt"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// Operator runs a sql operator's program on every record of a batch. It
// is used by one task goroutine.
type Operator struct {
	uid  string
	prog *sqlprog.Program
	row  sqlrow.Row
	buf  []byte
}

// New returns the operator uid that runs prog.
func New(uid string, prog *sqlprog.Program) *Operator {
	return &Operator{uid: uid, prog: prog}
}

// Process appends to out the output row of every record of in that the
// program keeps, with the record's key and timestamp. A record that does
// not read as the program's input, or whose expressions fail (a division by
// zero, an overflow), fails the batch with an error naming the operator and
// quoting the record.
func (o *Operator) Process(ctx context.Context, in, out *record.Batch) error {
	for i := range in.Records {
		r := &in.Records[i]
		v, ok := o.prog.Accept(r.Value)
		if !ok {
			continue
		}
		row, err := o.prog.Decode(o.row, v)
		if err != nil {
			return o.fail(r.Value, err)
		}
		o.row = row
		o.buf, ok, err = o.prog.Run(row, o.buf[:0])
		if err != nil {
			return o.fail(r.Value, err)
		}
		if ok {
			out.Append(r.Key, o.buf, r.Timestamp)
		}
	}
	return nil
}

func (o *Operator) fail(v []byte, err error) error {
	if o.prog.In == sqlprog.FormatRow {
		return fmt.Errorf("sql operator %s: %w", o.uid, err)
	}
	q := string(v)
	if len(q) > 200 {
		q = q[:200] + "..."
	}
	return fmt.Errorf("sql operator %s: record %q: %w", o.uid, q, err)
}

// Close implements the task's Operator; there is nothing to release.
func (o *Operator) Close(context.Context) error { return nil }
