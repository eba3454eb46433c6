package main

import (
	"bytes"
	"math"
	"slices"

	floe "github.com/floe-stream/floe/sdk/go"
)

// q18, find last bid (Flink's q18), and q19, auction top-10 price (Flink's
// q19), over a source of bids alone. q18 keys bids by "bidder,auction"
// (bid-bidder-auction) and emits each key's last bid by dateTime without
// its "B,"; q19 keys them by auction and emits its 10 highest bids by
// price, each without its "B," and with its rank (1 to 10) appended. Ties
// are broken by the bid line so that the output does not depend on the
// order of arrival: q18 keeps the greatest line of equal times, q19 ranks
// equal prices by earlier dateTime and then smaller line. NB: Flink's
// results are updating (ROW_NUMBER over an unbounded stream); Floe keeps
// the candidates in keyed state and emits them once, from an event-time
// timer at the greatest time, which fires when the input ends.

func init() {
	floe.KeySelector("bid-bidder-auction", bidderAuction)
	floe.Process("q18", q18)
	floe.OnTimer("q18", q18Emit)
	floe.Process("q19", q19)
	floe.OnTimer("q19", q19Emit)
}

// endOfInput is the time of the timers that emit q18's and q19's results:
// the watermark reaches it when the input ends.
const endOfInput = math.MaxInt64

// q19Top is how many bids per auction q19 keeps.
const q19Top = 10

var (
	// q18Last holds the key's last bid line.
	q18Last = floe.NewValueState("q18-last", floe.Bytes)
	// q19Best holds the auction's best bid lines, best first, each ending
	// in '\n'.
	q19Best = floe.NewValueState("q19-best", floe.Bytes)
)

func bidderAuction(ev []byte) ([]byte, error) {
	if !split(ev, bidF[:]) {
		return nil, errEvent
	}
	return append(append(append([]byte(nil), bidF[2]...), ','), bidF[1]...), nil
}

// bidOrder is a bid's price and dateTime.
type bidOrder struct{ price, time int64 }

func orderOf(ev []byte) (bidOrder, bool) {
	var f [bidFields][]byte
	var v [2]int64
	if !split(ev, f[:]) || !ints(v[:], f[3], f[6]) {
		return bidOrder{}, false
	}
	return bidOrder{v[0], v[1]}, true
}

// q18 keeps the bid if it is the key's last so far.
func q18(ctx *floe.Context, ev []byte, _ floe.Emitter) error {
	o, ok := orderOf(ev)
	if !ok {
		return errEvent
	}
	last, found := q18Last.Get(ctx)
	if found {
		l, _ := orderOf(last)
		if l.time > o.time || l.time == o.time && bytes.Compare(last, ev) >= 0 {
			return nil
		}
	} else {
		ctx.RegisterEventTimer(endOfInput)
	}
	q18Last.Put(ctx, ev)
	return nil
}

func q18Emit(ctx *floe.Context, _ floe.Timer, emit floe.Emitter) error {
	if last, ok := q18Last.Get(ctx); ok {
		emit.Emit(last[2:])
		q18Last.Delete(ctx)
	}
	return nil
}

// q19Less reports whether bid a ranks before bid b.
func q19Less(a, b []byte) bool {
	oa, _ := orderOf(a)
	ob, _ := orderOf(b)
	if oa.price != ob.price {
		return oa.price > ob.price
	}
	if oa.time != ob.time {
		return oa.time < ob.time
	}
	return bytes.Compare(a, b) < 0
}

// q19 adds the bid to the auction's best if it ranks among the first
// q19Top.
func q19(ctx *floe.Context, ev []byte, _ floe.Emitter) error {
	if _, ok := orderOf(ev); !ok {
		return errEvent
	}
	stored, found := q19Best.Get(ctx)
	if !found {
		ctx.RegisterEventTimer(endOfInput)
	}
	best := lines(stored)
	i := 0
	for i < len(best) && q19Less(best[i], ev) {
		i++
	}
	if i >= q19Top {
		return nil
	}
	best = slices.Insert(best, i, ev)
	if len(best) > q19Top {
		best = best[:q19Top]
	}
	var b []byte
	for _, l := range best {
		b = append(append(b, l...), '\n')
	}
	q19Best.Put(ctx, b)
	return nil
}

func q19Emit(ctx *floe.Context, _ floe.Timer, emit floe.Emitter) error {
	stored, ok := q19Best.Get(ctx)
	if !ok {
		return nil
	}
	for i, l := range lines(stored) {
		line = append(append(line[:0], l[2:]...), ',')
		emit.Emit(floe.AppendInt(line, int64(i+1)))
	}
	q19Best.Delete(ctx)
	return nil
}

// lines splits b at each '\n' that ends a line.
func lines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		out = append(out, b[:i])
		b = b[i+1:]
	}
	return out
}
