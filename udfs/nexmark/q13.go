package main

import floe "github.com/floe-stream/floe/sdk/go"

// q13, bounded side input join (Flink's q13): each bid whose auction id
// modulo 10,000 is a key of a side input file of "key,value" lines, as
// "auction,bidder,price,dateTime,value". The spec reads the file as a
// bounded source keyed by key, and the bids keyed by q13-key, into a
// coProcess: q13-side keeps each key's value and q13-bid joins a bid with
// it, or keeps the bid waiting with a timer at its time. The file source
// sends no watermarks, so it holds the join's event time back until it has
// been read to its end: when a waiting bid's timer fires, the side input
// is complete, and a bid whose key is still missing has no match and is
// dropped.

func init() {
	floe.KeySelector("q13-key", q13Key)
	floe.Process("q13-side", q13Side)
	floe.Process("q13-bid", q13Bid)
	floe.OnTimer("q13-side", q13Expire)
}

// q13Keys is the modulus of q13's key.
const q13Keys = 10_000

var (
	// q13Value holds a side input key's value.
	q13Value = floe.NewValueState("q13-value", floe.Bytes)
	// q13Waiting holds "auction,bidder,price,dateTime" of the bids that
	// came before their key's value.
	q13Waiting = floe.NewListState("q13-waiting", floe.Bytes)
)

// q13Key keys a bid by its auction id modulo q13Keys.
func q13Key(ev []byte) ([]byte, error) {
	if !split(ev, bidF[:]) {
		return nil, errEvent
	}
	auction, ok := atoi(bidF[1])
	if !ok {
		return nil, errEvent
	}
	return floe.AppendInt(nil, auction%q13Keys), nil
}

// q13Side keeps a side input line's value and joins the bids waiting for
// it.
func q13Side(ctx *floe.Context, rec []byte, emit floe.Emitter) error {
	i := floe.IndexByte(rec, ',')
	if i < 0 {
		return errEvent
	}
	value := rec[i+1:]
	q13Value.Put(ctx, value)
	for _, b := range q13Waiting.Get(ctx) {
		emit.Emit(q13Line(b, value))
	}
	q13Waiting.Clear(ctx)
	return nil
}

// q13Bid joins a bid with its key's value, or keeps it waiting.
func q13Bid(ctx *floe.Context, ev []byte, emit floe.Emitter) error {
	if !split(ev, bidF[:]) {
		return errEvent
	}
	b := append(append(append(append(append(append(append(out[:0], bidF[1]...), ','), bidF[2]...), ','), bidF[3]...), ','), bidF[6]...)
	out = b
	if value, ok := q13Value.Get(ctx); ok {
		emit.Emit(q13Line(b, value))
		return nil
	}
	q13Waiting.Append(ctx, b)
	ctx.RegisterEventTimer(ctx.Timestamp())
	return nil
}

// q13Expire drops the bids still waiting once the side input has ended:
// their key is not in it.
func q13Expire(ctx *floe.Context, _ floe.Timer, _ floe.Emitter) error {
	q13Waiting.Clear(ctx)
	return nil
}

// q13Line returns "bid,value" in a reused buffer.
func q13Line(bid, value []byte) []byte {
	line = append(append(append(line[:0], bid...), ','), value...)
	return line
}
