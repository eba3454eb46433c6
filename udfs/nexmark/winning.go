package main

import (
	"encoding/binary"

	floe "github.com/floe-stream/floe/sdk/go"
)

// The winning bid of an auction, as q9 and q4 define it after Flink's
// Nexmark: of the bids on the auction whose dateTime lies between the
// auction's dateTime and its expires (both included), the one with the
// highest price, the earliest on a tie, the lowest bidder on a further tie.
// An auction without such a bid has no winner.
//
// A coProcess keyed by auction id finds it: auctions through
// q9-auction (q4-auction) and bids through q9-bid (q4-bid). An auction
// keeps its line and its best bid so far in state and sets an event-time
// timer at expires; when it fires, every bid up to expires has come (the
// watermark is past it), so the best bid wins and the auction's state is
// cleared. A bid that comes before its auction waits in a pending list,
// with a timer at its own dateTime: if the watermark passes that before
// the auction comes, the auction starts later than the bid, which then
// cannot count, so the timer drops it. A bid for an auction already closed
// is dropped the same way.

func init() {
	floe.Process("q9-auction", q9Auction)
	floe.Process("q9-bid", winningBid)
	floe.OnTimer("q9-auction", func(ctx *floe.Context, t floe.Timer, emit floe.Emitter) error {
		return closeAuction(ctx, t, emit, q9Line)
	})
	floe.Process("q4-auction", q9Auction)
	floe.Process("q4-bid", winningBid)
	floe.OnTimer("q4-auction", func(ctx *floe.Context, t floe.Timer, emit floe.Emitter) error {
		return closeAuction(ctx, t, emit, q4Line)
	})
}

var (
	// openAuction holds an open auction's line without its "A,".
	openAuction = floe.NewValueState("open-auction", floe.Bytes)
	// bestBid holds the open auction's best bid so far (encodeBid).
	bestBid = floe.NewValueState("best-bid", floe.Bytes)
	// earlyBids holds the bids (encodeBid) that came before their
	// auction.
	earlyBids = floe.NewListState("early-bids", floe.Bytes)
)

// bid is what the winning bid needs of a bid.
type bid struct{ price, dateTime, bidder int64 }

// beats reports whether b wins over c.
func (b bid) beats(c bid) bool {
	if b.price != c.price {
		return b.price > c.price
	}
	if b.dateTime != c.dateTime {
		return b.dateTime < c.dateTime
	}
	return b.bidder < c.bidder
}

func encodeBid(dst []byte, b bid) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(b.price))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(b.dateTime))
	return binary.LittleEndian.AppendUint64(dst, uint64(b.bidder))
}

func decodeBid(p []byte) (bid, bool) {
	if len(p) != 24 {
		return bid{}, false
	}
	le := binary.LittleEndian
	return bid{int64(le.Uint64(p)), int64(le.Uint64(p[8:])), int64(le.Uint64(p[16:]))}, true
}

// auctionTimes returns an auction's dateTime and expires.
func auctionTimes(a []byte) (start, end int64, ok bool) {
	var f [auctionFields - 1][]byte // the fields after "A"
	var v [2]int64
	if !split(a, f[:]) || !ints(v[:], f[5], f[6]) {
		return 0, 0, false
	}
	return v[0], v[1], true
}

var bidBuf []byte

// q9Auction opens an auction: it takes the bids that came before it into
// account and sets the timer that closes it.
func q9Auction(ctx *floe.Context, ev []byte, _ floe.Emitter) error {
	if len(ev) < 2 || ev[0] != 'A' {
		return errEvent
	}
	a := ev[2:]
	start, end, ok := auctionTimes(a)
	if !ok {
		return errEvent
	}
	var best bid
	found := false
	for _, p := range earlyBids.Get(ctx) {
		b, ok := decodeBid(p)
		if ok && b.dateTime >= start && b.dateTime <= end && (!found || b.beats(best)) {
			best, found = b, true
		}
	}
	earlyBids.Clear(ctx)
	openAuction.Put(ctx, a)
	if found {
		bidBuf = encodeBid(bidBuf[:0], best)
		bestBid.Put(ctx, bidBuf)
	}
	ctx.RegisterEventTimer(end)
	return nil
}

var bidF [bidFields][]byte

// winningBid takes a bid into account for its open auction, or keeps it
// until its auction comes.
func winningBid(ctx *floe.Context, ev []byte, _ floe.Emitter) error {
	var v [3]int64
	if !split(ev, bidF[:]) || !ints(v[:], bidF[3], bidF[6], bidF[2]) {
		return errEvent
	}
	b := bid{price: v[0], dateTime: v[1], bidder: v[2]}
	a, open := openAuction.Get(ctx)
	if !open {
		if b.dateTime > ctx.Watermark() {
			earlyBids.Append(ctx, encodeBid(bidBuf[:0], b))
			ctx.RegisterEventTimer(b.dateTime)
		}
		return nil
	}
	start, end, ok := auctionTimes(a)
	if !ok || b.dateTime < start || b.dateTime > end {
		return nil
	}
	if p, ok := bestBid.Get(ctx); ok {
		if best, _ := decodeBid(p); !b.beats(best) {
			return nil
		}
	}
	bidBuf = encodeBid(bidBuf[:0], b)
	bestBid.Put(ctx, bidBuf)
	return nil
}

// closeAuction handles a timer of the winning-bid coProcess: at an open
// auction's expires it emits the winner, if any, with line and clears the
// auction; without an open auction it drops the early bids that can no
// longer count. Other timers of an open auction are early bids' and do
// nothing: the auction took those bids when it came.
func closeAuction(ctx *floe.Context, t floe.Timer, emit floe.Emitter, line func(a []byte, b bid) ([]byte, error)) error {
	a, open := openAuction.Get(ctx)
	if !open {
		dropEarlyBids(ctx, t.Timestamp)
		return nil
	}
	_, end, ok := auctionTimes(a)
	if !ok {
		return errEvent
	}
	if t.Timestamp != end {
		return nil
	}
	if p, ok := bestBid.Get(ctx); ok {
		b, ok := decodeBid(p)
		if !ok {
			return errEvent
		}
		out, err := line(a, b)
		if err != nil {
			return err
		}
		emit.Emit(out)
	}
	openAuction.Delete(ctx)
	bestBid.Delete(ctx)
	return nil
}

// dropEarlyBids removes the early bids at or before ts.
func dropEarlyBids(ctx *floe.Context, ts int64) {
	bids := earlyBids.Get(ctx)
	earlyBids.Clear(ctx)
	for _, p := range bids {
		if b, ok := decodeBid(p); ok && b.dateTime > ts {
			earlyBids.Append(ctx, p)
		}
	}
}

// q9Line returns the auction's line without its "A," followed by
// ",bidder,price,bidDateTime" of its winning bid.
func q9Line(a []byte, b bid) ([]byte, error) {
	line = append(append(line[:0], a...), ',')
	line = append(floe.AppendInt(line, b.bidder), ',')
	line = append(floe.AppendInt(line, b.price), ',')
	return floe.AppendInt(line, b.dateTime), nil
}

// q4Line returns "category,price" of an auction's winning bid.
func q4Line(a []byte, b bid) ([]byte, error) {
	i := len(a) - 1
	for i >= 0 && a[i] != ',' {
		i--
	}
	if i < 0 {
		return nil, errEvent
	}
	line = append(append(line[:0], a[i+1:]...), ',')
	return floe.AppendInt(line, b.price), nil
}
