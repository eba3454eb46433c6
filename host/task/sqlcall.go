package task

import (
	"context"
	"fmt"

	"github.com/floe-stream/floe/host/sqlop"
	"github.com/floe-stream/floe/internal/jobspec"
)

// sqlOperator opens a sql operator: its program alone; for a program that
// calls a scalar Wasm function, the program and an instance of the
// function's module, run as a map; for one that keeps a materialized view,
// the view over the stage's keyed state.
func (t *Task) sqlOperator(ctx context.Context, spec *jobspec.Operator) (Operator, error) {
	if spec.SQL.View != "" {
		if t.state == nil {
			return nil, fmt.Errorf("operator %s: a SQL view needs keyed state", spec.UID)
		}
		return sqlop.NewView(spec.UID, spec.SQL, t.state)
	}
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
