package task

import (
	"context"
	"errors"
	"fmt"

	"github.com/floe-stream/floe/host/sqlop"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/host/window"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/sqlprog"
)

// wasmAggregate is a Wasm aggregate function of a SQL aggregation, run
// through floe_window by its own instance, which Close closes.
type wasmAggregate struct{ *window.Wasm }

func (w wasmAggregate) Close(ctx context.Context) error { return w.In.Close(ctx) }

// sqlAggregates instantiates the Wasm aggregate functions of agg, the
// aggregation of operator op, in the order of agg.WasmAggs: one instance
// of its module each, unkeyed (an aggregate function keeps no state of
// its own).
func (t *Task) sqlAggregates(ctx context.Context, op *jobspec.Operator, agg *sqlprog.Aggregation) ([]window.Function, error) {
	idx, _ := agg.WasmAggs()
	fns := make([]window.Function, 0, len(idx))
	for _, i := range idx {
		call := agg.Aggs[i].Call
		spec := &jobspec.Operator{Type: op.Type, UID: op.UID, Module: call.Module, Function: call.Function}
		in, err := t.instance(ctx, spec, false)
		if err != nil {
			closeAggregates(ctx, fns)
			return nil, err
		}
		fns = append(fns, wasmAggregate{&window.Wasm{In: in.(*udf.Instance), Agg: true}})
	}
	return fns, nil
}

// closeAggregates closes what sqlAggregates opened.
func closeAggregates(ctx context.Context, fns []window.Function) error {
	var errs []error
	for _, fn := range fns {
		errs = append(errs, fn.(wasmAggregate).Close(ctx))
	}
	return errors.Join(errs...)
}

// sqlGroup opens a sqlGroup operator and its Wasm aggregates.
func (t *Task) sqlGroup(ctx context.Context, spec *jobspec.Operator) (Operator, error) {
	if spec.SQLAggregation.FinalAt != nil {
		q, err := t.queue(spec.UID)
		if err != nil {
			return nil, err
		}
		return sqlop.NewFinalGroup(spec.UID, spec.SQLAggregation, t.state, q)
	}
	fns, err := t.sqlAggregates(ctx, spec, spec.SQLAggregation)
	if err != nil {
		return nil, err
	}
	g, err := sqlop.NewGroup(spec.UID, spec.SQLAggregation, t.state, fns...)
	if err != nil {
		closeAggregates(ctx, fns)
		return nil, err
	}
	return g, nil
}

// sqlOver opens a sqlOver operator, its timers in the queue of its uid.
func (t *Task) sqlOver(spec *jobspec.Operator) (Operator, error) {
	if t.state == nil || !t.stage.KeyedInput {
		return nil, fmt.Errorf("operator %s: a sqlOver needs keyed input and keyed state", spec.UID)
	}
	q, err := t.queue(spec.UID)
	if err != nil {
		return nil, err
	}
	return sqlop.NewOver(spec.UID, spec.SQLOver, t.state, q)
}
