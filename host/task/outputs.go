package task

import (
	"context"

	"github.com/floe-stream/floe/host/exchange"
	"github.com/floe-stream/floe/host/record"
)

// outputs routes a task's output to every edge its stage writes (a
// stage read by several stages fans out). The output of a Hash edge is
// keyed first by the edge's keyBy; every edge gets every record. A
// barrier, a watermark or the end goes to every edge, after the records
// routed before it.
type outputs struct {
	edges []edgeOut
	// counted records the records in and out of a keyer, by its index
	// among the task's operators.
	counted func(i int, in, out *record.Batch)
}

// edgeOut is one output edge of the task.
type edgeOut struct {
	// key is the keyer of a Hash edge, nil for another; keyIdx its index
	// among the task's operators, for metrics.
	key    Operator
	keyIdx int
	router *exchange.Router
	keyed  record.Batch
}

// Route routes the records of b to every edge. b stays the caller's. A
// nil outputs is a chain that ends in no sink and no edge, as one that
// keeps a SQL materialized view does: it has nothing to route.
func (o *outputs) Route(ctx context.Context, b *record.Batch) error {
	if o == nil {
		return nil
	}
	for i := range o.edges {
		e := &o.edges[i]
		out := b
		if e.key != nil {
			e.keyed.Reset()
			if err := e.key.Process(ctx, b, &e.keyed); err != nil {
				return err
			}
			o.counted(e.keyIdx, b, &e.keyed)
			out = &e.keyed
		}
		if err := e.router.Route(ctx, out); err != nil {
			return err
		}
	}
	return nil
}

// Flush ships every edge's pending batches.
func (o *outputs) Flush(ctx context.Context) error {
	return o.each(func(r *exchange.Router) error { return r.Flush(ctx) })
}

// Barrier sends checkpoint barrier id on every edge, marked Suspend for a
// partial rescale's checkpoint (suspend.go).
func (o *outputs) Barrier(ctx context.Context, id int64, suspend bool) error {
	if suspend {
		return o.each(func(r *exchange.Router) error { return r.SuspendBarrier(ctx, id) })
	}
	return o.each(func(r *exchange.Router) error { return r.Barrier(ctx, id) })
}

// Watermark sends watermark ts on every edge.
func (o *outputs) Watermark(ctx context.Context, ts int64, idle bool) error {
	return o.each(func(r *exchange.Router) error { return r.Watermark(ctx, ts, idle) })
}

// End ends the task's stream on every edge.
func (o *outputs) End(ctx context.Context) error {
	return o.each(func(r *exchange.Router) error { return r.End(ctx) })
}

func (o *outputs) each(fn func(r *exchange.Router) error) error {
	for i := range o.edges {
		if err := fn(o.edges[i].router); err != nil {
			return err
		}
	}
	return nil
}
