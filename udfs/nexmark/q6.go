package main

import (
	"encoding/binary"

	floe "github.com/floe-stream/floe/sdk/go"
)

// q6, average selling price by seller (Beam's q6): at each auction's close
// with a winner, "expires,seller,auctionId,average" with the average,
// rounded down, of the winning prices of the seller's last 10 closed
// auctions, this one included. The winning bids come from the q9 join
// (winning.go: q6-auction, q6-bid) as "seller,auctionId,price" at each
// auction's expiry, keyed by seller into q6-average. Closes of one seller
// reach it from several upstream subtasks, in no fixed order, so it keeps
// each close until the watermark passes its expiry (a timer) and then
// applies the closes due in order of expiry and auction id: the output is
// the same whatever the order of arrival.

func init() {
	floe.Process("q6-auction", q9Auction)
	floe.Process("q6-bid", winningBid)
	floe.OnTimer("q6-auction", func(ctx *floe.Context, t floe.Timer, emit floe.Emitter) error {
		return closeAuction(ctx, t, emit, q6Line)
	})
	floe.Process("q6-average", q6Close)
	floe.OnTimer("q6-average", q6Apply)
}

// q6Last is how many of a seller's last closes q6 averages.
const q6Last = 10

var (
	// q6Due holds the closes not yet applied, under their expiry and
	// auction id as big-endian integers (so in that order), each with its
	// price.
	q6Due = floe.NewMapState("q6-due", floe.Bytes, floe.Int64)
	// q6Prices holds the seller's last q6Last winning prices, oldest
	// first, as little-endian integers.
	q6Prices = floe.NewValueState("q6-prices", floe.Bytes)
)

// q6Line returns "seller,auctionId,price" of an auction's winning bid.
func q6Line(a []byte, b bid) ([]byte, error) {
	var f [auctionFields - 1][]byte // the fields after "A"
	if !split(a, f[:]) {
		return nil, errEvent
	}
	line = append(append(append(append(line[:0], f[7]...), ','), f[0]...), ',')
	return floe.AppendInt(line, b.price), nil
}

var dueKey []byte

// q6Close keeps a close "seller,auctionId,price" until its expiry is
// passed.
func q6Close(ctx *floe.Context, rec []byte, _ floe.Emitter) error {
	var f [3][]byte
	var v [2]int64
	if !split(rec, f[:]) || !ints(v[:], f[1], f[2]) {
		return errEvent
	}
	ts := ctx.Timestamp()
	dueKey = binary.BigEndian.AppendUint64(dueKey[:0], uint64(ts))
	dueKey = binary.BigEndian.AppendUint64(dueKey, uint64(v[0]))
	q6Due.Put(ctx, dueKey, v[1])
	ctx.RegisterEventTimer(ts)
	return nil
}

// q6Apply applies the closes at or before the timer's time in order,
// emitting the seller's average after each.
func q6Apply(ctx *floe.Context, t floe.Timer, emit floe.Emitter) error {
	p, _ := q6Prices.Get(ctx)
	prices := make([]int64, 0, q6Last+1)
	for i := 0; i+8 <= len(p); i += 8 {
		prices = append(prices, int64(binary.LittleEndian.Uint64(p[i:])))
	}
	var done [][]byte
	for k, price := range q6Due.All(ctx) {
		if len(k) != 16 {
			return errEvent
		}
		ts, id := int64(binary.BigEndian.Uint64(k)), int64(binary.BigEndian.Uint64(k[8:]))
		if ts > t.Timestamp {
			break
		}
		done = append(done, k)
		prices = append(prices, price)
		if len(prices) > q6Last {
			prices = prices[1:]
		}
		var sum int64
		for _, x := range prices {
			sum += x
		}
		line = append(floe.AppendInt(line[:0], ts), ',')
		line = append(append(line, ctx.Key()...), ',')
		line = append(floe.AppendInt(line, id), ',')
		emit.Emit(floe.AppendInt(line, sum/int64(len(prices))))
	}
	for _, k := range done {
		q6Due.Delete(ctx, k)
	}
	p = p[:0]
	for _, x := range prices {
		p = binary.LittleEndian.AppendUint64(p, uint64(x))
	}
	q6Prices.Put(ctx, p)
	return nil
}
