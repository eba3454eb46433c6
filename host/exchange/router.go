package exchange

import (
	"context"
	"errors"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/storage/keygroup"
)

// Partitioning chooses the target of each record.
type Partitioning int

// The partitionings a Router applies.
const (
	// ByKeyGroup sends a record to the subtask that owns its key group.
	ByKeyGroup Partitioning = iota
	// RoundRobin spreads records evenly over the targets.
	RoundRobin
	// Broadcast sends every record to every target (the broadcast input
	// of a coProcess).
	Broadcast
)

// Router splits a sending subtask's output over the receivers of the next
// stage. It is used by one goroutine.
type Router struct {
	from           int
	targets        []Sender
	pending        []*record.Batch
	part           Partitioning
	maxParallelism int
	batchSize      int
	next           int
}

// NewRouter routes the output of subtask from to targets (indexed by
// receiving subtask), shipping batches of batchSize records.
func NewRouter(from int, targets []Sender, part Partitioning, maxParallelism, batchSize int) *Router {
	r := &Router{from: from, targets: targets, part: part, maxParallelism: maxParallelism, batchSize: batchSize}
	r.pending = make([]*record.Batch, len(targets))
	for i := range r.pending {
		r.pending[i] = GetBatch()
	}
	r.next = from % len(targets)
	return r
}

// Route copies the records of b to their targets' pending batches, shipping
// those that fill up. b stays the caller's.
func (r *Router) Route(ctx context.Context, b *record.Batch) error {
	if r.part == Broadcast {
		return r.routeAll(ctx, b)
	}
	n := len(r.targets)
	for i := range b.Records {
		rec := &b.Records[i]
		var t int
		if r.part == ByKeyGroup {
			t = keygroup.SubtaskFor(int(rec.KeyGroup), r.maxParallelism, n)
		} else {
			t = r.next
			if r.next++; r.next == n {
				r.next = 0
			}
		}
		p := r.pending[t]
		p.AppendRecord(rec)
		if p.Len() >= r.batchSize {
			if err := r.ship(ctx, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// routeAll copies every record of b to every target's pending batch.
func (r *Router) routeAll(ctx context.Context, b *record.Batch) error {
	for i := range b.Records {
		for t, p := range r.pending {
			p.AppendRecord(&b.Records[i])
			if p.Len() >= r.batchSize {
				if err := r.ship(ctx, t); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// ship sends target t's pending batch and starts a new one.
func (r *Router) ship(ctx context.Context, t int) error {
	b := r.pending[t]
	if err := r.targets[t].Send(ctx, Message{From: r.from, Batch: b}); err != nil {
		return err
	}
	r.pending[t] = GetBatch()
	return nil
}

// Flush ships every non-empty pending batch.
func (r *Router) Flush(ctx context.Context) error {
	for t, p := range r.pending {
		if p.Len() > 0 {
			if err := r.ship(ctx, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// Barrier flushes and sends checkpoint barrier id to every target, so the
// barrier follows every record routed before it.
func (r *Router) Barrier(ctx context.Context, id int64) error { return r.barrier(ctx, id, false) }

// SuspendBarrier is Barrier for the checkpoint of a partial rescale: the
// barrier is marked Suspend, and the sender sends nothing after it until
// it is rewired.
func (r *Router) SuspendBarrier(ctx context.Context, id int64) error { return r.barrier(ctx, id, true) }

func (r *Router) barrier(ctx context.Context, id int64, suspend bool) error {
	if err := r.Flush(ctx); err != nil {
		return err
	}
	for _, t := range r.targets {
		if err := t.Send(ctx, Message{From: r.from, Barrier: id, Suspend: suspend}); err != nil {
			return err
		}
	}
	return nil
}

// Watermark flushes and sends watermark ts (idle: the sender is idle) to
// every target, so the watermark follows every record routed before it.
func (r *Router) Watermark(ctx context.Context, ts int64, idle bool) error {
	if err := r.Flush(ctx); err != nil {
		return err
	}
	for _, t := range r.targets {
		if err := t.Send(ctx, Message{From: r.from, IsWatermark: true, Watermark: ts, Idle: idle}); err != nil {
			return err
		}
	}
	return nil
}

// End flushes and tells every target that this sender's stream has ended.
func (r *Router) End(ctx context.Context) error {
	if err := r.Flush(ctx); err != nil {
		return err
	}
	var errs []error
	for _, t := range r.targets {
		errs = append(errs, t.Send(ctx, Message{From: r.from, End: true}))
	}
	return errors.Join(errs...)
}
