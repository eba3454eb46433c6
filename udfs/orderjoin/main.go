// Command orderjoin joins orders and payments by order id with a two-input
// keyed operator (a job spec's coProcess, docs/jobs.md): onOrder reads
// orders "id,amount" and onPayment reads payments "id,paid", both keyed by
// id, and they share the id's state and timers.
//
// When an id has both, the second to arrive emits "id,amount,paid" and
// clears the id's state. Whichever arrives first sets an event-time timer
// at the end of time, which fires once the input ends: an id still
// unmatched then emits "id,amount,-" or "id,-,paid". So the output is the
// full outer join of the two inputs, each id exactly once.
package main

import (
	"bytes"
	"errors"
	"math"

	floe "github.com/floe-stream/floe/sdk/go"
)

func init() {
	floe.Process("onOrder", onOrder)
	floe.Process("onPayment", onPayment)
	// One timer handler serves both functions: a coProcess's timers fire
	// into its first function's handler.
	floe.OnTimer("onOrder", unmatched)
}

var (
	// amounts and paid hold an id's order amount and payment until the
	// other side arrives.
	amounts = floe.NewValueState("amount", floe.Bytes, floe.Queryable())
	paid    = floe.NewValueState("paid", floe.Bytes, floe.Queryable())
)

// endOfTime is when the unmatched timer fires: the watermark reaches it
// when a bounded input ends.
const endOfTime = math.MaxInt64

// onOrder handles an order "id,amount".
func onOrder(ctx *floe.Context, rec []byte, out floe.Emitter) error {
	amount, err := field(rec)
	if err != nil {
		return err
	}
	if p, ok := paid.Get(ctx); ok {
		paid.Delete(ctx)
		ctx.DeleteEventTimer(endOfTime)
		out.Emit(joined(ctx.Key(), amount, p))
		return nil
	}
	amounts.Put(ctx, amount)
	ctx.RegisterEventTimer(endOfTime)
	return nil
}

// onPayment handles a payment "id,paid".
func onPayment(ctx *floe.Context, rec []byte, out floe.Emitter) error {
	p, err := field(rec)
	if err != nil {
		return err
	}
	if amount, ok := amounts.Get(ctx); ok {
		amounts.Delete(ctx)
		ctx.DeleteEventTimer(endOfTime)
		out.Emit(joined(ctx.Key(), amount, p))
		return nil
	}
	paid.Put(ctx, p)
	ctx.RegisterEventTimer(endOfTime)
	return nil
}

// unmatched emits what an id holds once the input has ended.
func unmatched(ctx *floe.Context, _ floe.Timer, out floe.Emitter) error {
	amount, hasAmount := amounts.Get(ctx)
	p, hasPaid := paid.Get(ctx)
	if !hasAmount {
		amount = []byte("-")
	}
	if !hasPaid {
		p = []byte("-")
	}
	amounts.Delete(ctx)
	paid.Delete(ctx)
	out.Emit(joined(ctx.Key(), amount, p))
	return nil
}

// field returns the second field of "id,value".
func field(rec []byte) ([]byte, error) {
	_, v, ok := bytes.Cut(rec, []byte(","))
	if !ok {
		return nil, errors.New("want id,value")
	}
	return v, nil
}

func joined(id, amount, paid []byte) []byte {
	b := append(append([]byte(nil), id...), ',')
	b = append(append(b, amount...), ',')
	return append(b, paid...)
}

func main() {}
