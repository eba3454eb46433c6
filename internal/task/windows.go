package task

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/floe-stream/floe/host"
	"github.com/floe-stream/floe/internal/connector"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/record"
	"github.com/floe-stream/floe/internal/timer"
	"github.com/floe-stream/floe/internal/window"
)

// windowOp is a window operator of the chain and the Wasm instance of its
// function.
type windowOp struct {
	*window.Operator
	in *host.Instance
}

func (w windowOp) Close(ctx context.Context) error { return w.in.Close(ctx) }

// windowOperator opens the window operator op.
func (t *Task) windowOperator(ctx context.Context, op *jobspec.Operator) (Operator, error) {
	if t.state == nil {
		return nil, fmt.Errorf("operator %s: a window needs keyed state", op.UID)
	}
	inst, err := t.instance(ctx, op, true)
	if err != nil {
		return nil, err
	}
	in := inst.(*host.Instance)
	wins, err := t.state.Map(op.UID + "#windows")
	if err != nil {
		return nil, err
	}
	elems, err := t.state.Map(op.UID + "#elems")
	if err != nil {
		return nil, err
	}
	w := op.Window
	cfg := window.Config{
		Spec: window.Spec{Kind: window.Kind(w.Kind), Size: w.Size.Milliseconds(),
			Slide: w.Slide.Milliseconds(), Gap: w.Gap.Milliseconds()},
		Domain:          host.EventTime,
		AllowedLateness: w.AllowedLateness.Milliseconds(),
		LateOutput:      w.LateOutput,
		Now:             nowMillis,
	}
	if w.ProcessingTime {
		cfg.Domain = host.ProcessingTime
	}
	wo, err := window.New(cfg, &window.Wasm{In: in, Agg: w.Aggregate}, wins, elems, t.queues[op.UID])
	if err != nil {
		in.Close(ctx)
		return nil, fmt.Errorf("operator %s: %w", op.UID, err)
	}
	return windowOp{wo, in}, nil
}

// sideOutputs is what an operator with side outputs offers.
type sideOutputs interface {
	SideOutputs() []string
	SideOutput(port int) *record.Batch
}

// sideSinks holds the sinks of one operator's routed side outputs.
type sideSinks map[string]connector.Sink

// openSideSinks opens the sinks the job routes operator i's side outputs to.
func (t *Task) openSideSinks() error {
	t.sides = make([]sideSinks, len(t.stage.Operators))
	for i, op := range t.stage.Operators {
		for name, s := range op.SideOutputs {
			s := s
			sink, err := openSink(&s, t.split(), t.env.Stdout, false, false, t.env.Logger)
			if err != nil {
				return fmt.Errorf("operator %s: side output %s: %w", op.UID, name, err)
			}
			if t.sides[i] == nil {
				t.sides[i] = sideSinks{}
			}
			t.sides[i][name] = sink
		}
	}
	return nil
}

// drainSide writes what operator i sent to its side outputs to their sinks
// and drops (and counts) what goes nowhere.
func (t *Task) drainSide(i int) error {
	so, ok := t.ops[i].(sideOutputs)
	if !ok {
		return nil
	}
	for p, name := range so.SideOutputs() {
		b := so.SideOutput(p + 1)
		if b.Len() == 0 {
			continue
		}
		var sink connector.Sink
		if i < len(t.sides) {
			sink = t.sides[i][name]
		}
		if sink != nil {
			if err := sink.Write(b); err != nil {
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

// closeSideSinks flushes and closes the side-output sinks.
func (t *Task) closeSideSinks() []error {
	var errs []error
	for _, ss := range t.sides {
		for _, s := range ss {
			errs = append(errs, s.Close())
		}
	}
	return errs
}

// timerTarget is an operator whose timers fire: a Wasm process function or
// a window operator.
type timerTarget interface {
	FireTimer(ctx context.Context, d host.TimeDomain, ts int64, kg uint16, key []byte, out *record.Batch) error
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
