package task

import (
	"context"
	"fmt"

	"github.com/floe-stream/floe/host/sqlop"
	"github.com/floe-stream/floe/internal/jobspec"
)

// sqlOperator opens a sql operator: its program alone, or, for a program
// that calls a scalar Wasm function, the program and an instance of the
// function's module, run as a map.
func (t *Task) sqlOperator(ctx context.Context, spec *jobspec.Operator) (Operator, error) {
	if !spec.SQL.IsCall() {
		return sqlop.New(spec.UID, spec.SQL), nil
	}
	op, err := t.instance(ctx, spec, false)
	if err != nil {
		return nil, err
	}
	fn, ok := op.(sqlop.Function)
	if !ok {
		op.Close(ctx)
		return nil, fmt.Errorf("operator %s: the function's instance cannot run a batch", spec.UID)
	}
	return sqlop.NewCall(spec.UID, spec.SQL, fn), nil
}
