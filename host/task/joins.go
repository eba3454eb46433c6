package task

import (
	"context"
	"fmt"
	"slices"

	"github.com/floe-stream/floe/host/join"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/sqlop"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/host/window"
	"github.com/floe-stream/floe/internal/jobspec"
)

// twoInputOp is an operator that heads a stage with two inputs: a
// coProcess's Wasm instance or a join.
type twoInputOp interface {
	ProcessInput(ctx context.Context, input int, in, out *record.Batch) error
}

// joinCore is what the task uses of a join.Interval or a join.Window.
type joinCore interface {
	Operator
	twoInputOp
	timerTarget
	watermarked
	sideOutputs
	Late() int64
}

// joinOp is a join operator of the chain and the Wasm instance of its join
// function, or nil for the built-in concatenation.
type joinOp struct {
	joinCore
	in *udf.Instance
}

func (j joinOp) Close(ctx context.Context) error {
	if j.in == nil {
		return nil
	}
	return j.in.Close(ctx)
}

// joinOperator opens the intervalJoin or windowJoin op, whose rows live in
// the keyed state namespace "<uid>#rows".
func (t *Task) joinOperator(ctx context.Context, op *jobspec.Operator) (Operator, error) {
	if t.state == nil || !t.stage.KeyedInput {
		return nil, fmt.Errorf("operator %s: a join needs keyed input and keyed state", op.UID)
	}
	rows, err := t.state.Map(op.UID + "#rows")
	if err != nil {
		return nil, err
	}
	q, err := t.queue(op.UID)
	if err != nil {
		return nil, err
	}
	j := op.Join
	var fn join.Combiner = join.Concat{Sep: []byte(j.Separator)}
	var in *udf.Instance
	if j.SQL != nil {
		fn = &sqlop.JoinRows{Spec: j.SQL}
	} else if op.Function != "" {
		inst, err := t.instance(ctx, op, false)
		if err != nil {
			return nil, err
		}
		in = inst.(*udf.Instance)
		fn = &join.Wasm{Fn: in}
	}
	var core joinCore
	if op.Type == jobspec.OperatorIntervalJoin {
		cfg := join.IntervalConfig{Lower: j.Lower.Milliseconds(), Upper: j.Upper.Milliseconds(), LateOutput: j.LateOutput, UpperOf: sqlop.Until(j.SQL)}
		if j.SQL != nil {
			// NB: only a SQL join is outer: its rows hold the NULLs.
			cfg.Outer, err = join.ParseOuter(j.SQL.Outer)
			cfg.Retract = j.SQL.Changelog
		}
		if err == nil {
			core, err = join.NewInterval(cfg, fn, rows, q)
		}
	} else {
		w := op.Window
		core, err = join.NewWindow(join.WindowConfig{
			Spec: window.Spec{Kind: window.Kind(w.Kind), Size: w.Size.Milliseconds(),
				Slide: w.Slide.Milliseconds(), Gap: w.Gap.Milliseconds()},
			Kind:            join.Kind(j.Kind),
			AllowedLateness: w.AllowedLateness.Milliseconds(),
			LateOutput:      j.LateOutput,
		}, fn, rows, q)
	}
	if err != nil {
		if in != nil {
			in.Close(ctx)
		}
		return nil, fmt.Errorf("operator %s: %w", op.UID, err)
	}
	return joinOp{core, in}, nil
}

// SideOutputs returns the join's late output, if any, then the side
// outputs of its join function, if any.
func (j joinOp) SideOutputs() []string {
	names := j.joinCore.SideOutputs()
	if j.in == nil {
		return names
	}
	return append(slices.Clip(names), j.in.SideOutputs()...)
}

// SideOutput returns the batch of side output port (1-based, in the order
// of SideOutputs).
func (j joinOp) SideOutput(port int) *record.Batch {
	if n := len(j.joinCore.SideOutputs()); port > n {
		return j.in.SideOutput(port - n)
	}
	return j.joinCore.SideOutput(port)
}
