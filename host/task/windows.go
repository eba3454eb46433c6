package task

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/sqlop"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/host/window"
	"github.com/floe-stream/floe/internal/jobspec"
)

// windowOp is a window operator of the chain and the Wasm instance of its
// function (nil for a SQL window's built-in aggregate).
type windowOp struct {
	*window.Operator
	in *udf.Instance
	// aggs are the Wasm aggregates of a SQL window's aggregation.
	aggs []window.Function
}

func (w windowOp) Close(ctx context.Context) error {
	err := closeAggregates(ctx, w.aggs)
	if w.in == nil {
		return err
	}
	return errors.Join(err, w.in.Close(ctx))
}

// liveWindowBytes bounds the memory a window operator's live windows take
// (window.Config.LiveBytes); past it, its windows go to keyed state, whose
// store spills to disk.
const liveWindowBytes = 64 << 20

// windowsNS ends the namespace of a window operator's windows in keyed
// state.
const windowsNS = "#windows"

// windowOperator opens the window operator op.
func (t *Task) windowOperator(ctx context.Context, op *jobspec.Operator) (Operator, error) {
	if t.state == nil {
		return nil, fmt.Errorf("operator %s: a window needs keyed state", op.UID)
	}
	w0 := op.Window
	var fn window.Function
	var in *udf.Instance
	var aggs []window.Function
	if op.SQLTopN != nil {
		fn = &sqlop.WindowTopN{Rank: op.SQLTopN} // NB: a window Top-N
		if _, err := t.queue(op.UID); err != nil {
			return nil, err
		}
	} else if op.SQLAggregation != nil {
		var err error
		if aggs, err = t.sqlAggregates(ctx, op, op.SQLAggregation); err != nil {
			return nil, err
		}
		if fn, err = sqlop.NewAggregate(op.SQLAggregation, aggs); err != nil {
			closeAggregates(ctx, aggs)
			return nil, err
		}
		// NB: the Wasm path makes the operator's timer queue as it
		// instantiates the function; a built-in one makes it here.
		if _, err := t.queue(op.UID); err != nil {
			closeAggregates(ctx, aggs)
			return nil, err
		}
	} else {
		inst, err := t.instance(ctx, op, true)
		if err != nil {
			return nil, err
		}
		in = inst.(*udf.Instance)
		fn = &window.Wasm{In: in, Agg: w0.Aggregate}
	}
	closeIn := func() {
		if in != nil {
			in.Close(ctx)
		}
		closeAggregates(ctx, aggs)
	}
	wins, err := t.state.Map(op.UID + windowsNS)
	if err != nil {
		closeIn()
		return nil, err
	}
	elems, err := t.state.Map(op.UID + "#elems")
	if err != nil {
		closeIn()
		return nil, err
	}
	w := w0
	cfg := window.Config{
		Spec: window.Spec{Kind: window.Kind(w.Kind), Size: w.Size.Milliseconds(),
			Slide: w.Slide.Milliseconds(), Gap: w.Gap.Milliseconds()},
		Domain:          udf.EventTime,
		AllowedLateness: w.AllowedLateness.Milliseconds(),
		LateOutput:      w.LateOutput,
		Now:             t.nowMillis,
		LiveBytes:       liveWindowBytes,
	}
	if w.ProcessingTime {
		cfg.Domain = udf.ProcessingTime
	}
	wo, err := window.New(cfg, fn, wins, elems, t.queues[op.UID])
	if err != nil {
		closeIn()
		return nil, fmt.Errorf("operator %s: %w", op.UID, err)
	}
	return windowOp{wo, in, aggs}, nil
}

// sideOutputs is what an operator with side outputs offers.
type sideOutputs interface {
	SideOutputs() []string
	SideOutput(port int) *record.Batch
}

// sideRoute is where one side output goes: through its operators, chained
// in this task, into its sink.
type sideRoute struct {
	ops  []Operator
	sink connector.Sink
	bufs [2]record.Batch
}

// sideSinks holds the routes of one operator's side outputs, by name.
type sideSinks map[string]*sideRoute

// openSideSinks opens the routes of every operator's side outputs.
func (t *Task) openSideSinks(ctx context.Context) error {
	t.sides = make([]sideSinks, len(t.stage.Operators))
	for i, op := range t.stage.Operators {
		for name, so := range op.SideOutputs {
			sink, err := openSink(&so.Sink, t.split(), t.env.Stdout, false, false, t.env.Logger)
			if err != nil {
				return fmt.Errorf("operator %s: side output %s: %w", op.UID, name, err)
			}
			r := &sideRoute{sink: sink}
			if t.sides[i] == nil {
				t.sides[i] = sideSinks{}
			}
			t.sides[i][name] = r
			for j := range so.Operators {
				in, err := t.instance(ctx, &so.Operators[j], false)
				if err != nil {
					return fmt.Errorf("operator %s: side output %s: %w", op.UID, name, err)
				}
				r.ops = append(r.ops, in)
			}
		}
	}
	return nil
}

// write passes b through the route's operators into its sink.
func (r *sideRoute) write(ctx context.Context, b *record.Batch) error {
	cur := b
	for i, op := range r.ops {
		out := &r.bufs[i%2]
		out.Reset()
		if err := op.Process(ctx, cur, out); err != nil {
			return err
		}
		if so, ok := op.(sideOutputs); ok {
			// NB: side outputs of a side output's operators go nowhere.
			for p := range so.SideOutputs() {
				so.SideOutput(p + 1).Reset()
			}
		}
		cur = out
	}
	return r.sink.Write(cur)
}

// drainSide sends what operator i sent to its side outputs along their
// routes, and drops (and counts) what goes nowhere.
func (t *Task) drainSide(ctx context.Context, i int) error {
	so, ok := t.ops[i].(sideOutputs)
	if !ok {
		return nil
	}
	for p, name := range so.SideOutputs() {
		b := so.SideOutput(p + 1)
		if b.Len() == 0 {
			continue
		}
		var route *sideRoute
		if i < len(t.sides) {
			route = t.sides[i][name]
		}
		if route != nil {
			if err := route.write(ctx, b); err != nil {
				return fmt.Errorf("side output %s: %w", name, err)
			}
		} else {
			if t.Metrics.SideDropped.Add(int64(b.Len())) == int64(b.Len()) {
				t.env.Logger.Warn("dropping records sent to a side output the job does not route",
					slog.String("task", t.name), slog.String("output", name))
			}
		}
		b.Reset()
	}
	return nil
}

// closeSideSinks closes the routes' operators and flushes and closes their
// sinks.
func (t *Task) closeSideSinks(ctx context.Context) []error {
	var errs []error
	for _, ss := range t.sides {
		for _, r := range ss {
			for _, op := range r.ops {
				errs = append(errs, op.Close(ctx))
			}
			errs = append(errs, r.sink.Close())
		}
	}
	return errs
}

// timerTarget is an operator whose timers fire: a Wasm process function or
// a window operator.
type timerTarget interface {
	FireTimer(ctx context.Context, d udf.TimeDomain, ts int64, kg uint16, key []byte, out *record.Batch) error
}

// watermarked is an operator that wants the task's watermark.
type watermarked interface{ SetWatermark(ts int64) }

// queue returns the timer queue of operator uid.
func (t *Task) queue(uid string) (*timer.Queue, error) {
	if q, ok := t.queues[uid]; ok {
		return q, nil
	}
	ts, err := t.state.Map(timer.Namespace(uid))
	if err != nil {
		return nil, err
	}
	q := timer.New(ts)
	if t.queues == nil {
		t.queues = map[string]*timer.Queue{}
	}
	t.queues[uid] = q
	return q, nil
}
