package main

import (
	"encoding/binary"
	"errors"

	floe "github.com/floe-stream/floe/sdk/go"
)

// The winning bid of an auction, as q9 and q4 define it after Flink's
// Nexmark: of the bids on the auction whose dateTime lies between the
// auction's dateTime and its expires (both included), the one with the
// highest price, the earliest on a tie, the lowest bidder on a further tie.
// An auction without such a bid has no winner.
//
// A coProcess keyed by auction id finds it: auctions through
// q9-auction (q4-auction, q6-auction) and bids through q9-bid (q4-bid,
// q6-bid). An auction keeps its times with its best bid so far in one
// small value, and its line in another, and sets an event-time timer at
// expires; when it fires, every bid up to expires has come (the watermark
// is past it), so the best bid wins, and the auction's state goes: the
// instance remembers in memory that it closed, for closed_ms more, so that
// later bids for it are dropped at once (closedAuctions). A bid that comes
// before
// its auction (or after the auction is forgotten) waits in a pending list,
// with a timer at its own dateTime rounded up to a second: if the
// watermark passes that before the auction comes, the auction starts later
// than the bid, which then cannot count, so the timer drops it. A bid reads (and, when it leads,
// writes) only its auction's small value, never the line.

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
	floe.OnOpen(func(p floe.Params) error {
		var err error
		closed = closedAuctions{}
		closedMillis, err = p.Int("closed_ms", 60_000)
		if err == nil && closedMillis < 1 {
			err = errors.New("nexmark: closed_ms must be at least 1")
		}
		return err
	})
}

// closedMillis is how long, in ms of event time after its expiry, a closed
// auction is remembered (the closed_ms parameter, 60 s by default), so that
// a bid for it is dropped at once rather than kept until the watermark
// passes it. The result does not depend on it: a bid for an auction
// forgotten already takes the early bids' path, whose timer drops it.
var closedMillis int

// closed holds the auctions this instance closed in the last closedMillis.
var closed closedAuctions

// closedAuctions remembers closed auctions by key until a time, in memory.
//
// NB: not in keyed state, where remembering cost each auction a second
// timer (a state write and a Wasm call) and a state write. Nothing is lost
// when it is: after a restore or a rescale a bid for a closed auction
// takes the early bids' path, and its timer drops it.
type closedAuctions struct {
	until map[string]int64
	order []closedAuction // in order of closing, so of until, from head
	head  int
}

type closedAuction struct {
	key   string
	until int64
}

// add remembers the auction of key until ts.
func (c *closedAuctions) add(key []byte, ts int64) {
	if c.until == nil {
		c.until = map[string]int64{}
	}
	k := string(key)
	c.until[k] = ts
	c.order = append(c.order, closedAuction{k, ts})
}

// has reports whether the auction of key is remembered as closed.
func (c *closedAuctions) has(key []byte) bool {
	_, ok := c.until[string(key)]
	return ok
}

// forget drops the auctions remembered until ts or earlier.
func (c *closedAuctions) forget(ts int64) {
	for c.head < len(c.order) && c.order[c.head].until <= ts {
		if a := c.order[c.head]; c.until[a.key] == a.until {
			delete(c.until, a.key)
		}
		c.order[c.head] = closedAuction{}
		c.head++
	}
	// Reuse the slice once the forgotten half of it is the larger.
	if c.head > len(c.order)/2 {
		c.order = append(c.order[:0], c.order[c.head:]...)
		c.head = 0
	}
}

var (
	// auctionTimes holds what a bid needs of its auction (encodeTimes):
	// its dateTime and expires, whether it has closed, and its best bid so
	// far, until closedMillis after its expiry. One value, so that a bid
	// reads and writes one small state.
	auctionTimes = floe.NewValueState[*times]("auction-times", timesCodec{})
	// openAuction holds an open auction's line without its "A,".
	openAuction = floe.NewValueState("open-auction", floe.Bytes)
	// earlyBids holds the bids (encodeBid) that came before their
	// auction.
	earlyBids = floe.NewListState[bid]("early-bids", bidCodec{})
)

// times is what a bid needs of its auction, and the best bid so far.
type times struct {
	start, end int64
	closed     bool
	best       bid
	found      bool // best is set
}

// encodeTimes appends start, end, a closed byte (0 or 1) and, when found,
// the best bid (encodeBid).
func encodeTimes(dst []byte, t *times) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(t.start))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(t.end))
	closed := byte(0)
	if t.closed {
		closed = 1
	}
	dst = append(dst, closed)
	if t.found {
		dst = encodeBid(dst, t.best)
	}
	return dst
}

// decodeTimes decodes p, laid out as encodeTimes lays it out, into t.
func decodeTimes(t *times, p []byte) bool {
	if len(p) != 17 && len(p) != 17+24 {
		return false
	}
	le := binary.LittleEndian
	t.start, t.end, t.closed = int64(le.Uint64(p)), int64(le.Uint64(p[8:])), p[16] == 1
	t.best, t.found = bid{}, false
	if len(p) > 17 {
		t.best, t.found = decodeBid(p[17:])
	}
	return true
}

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

// timesCodec stores times as encodeTimes lays them out. Unlike
// floe.Bytes, whose Decode copies, it decodes in place: a bid reads its
// auction's times, and a copy each was most of the guest's garbage.
//
// NB: it passes times by pointer, and Decode returns decodedTimes, valid
// until the next Get of auctionTimes. times is too large for Go to keep in
// registers, so each pass by value, through Decode, the SDK's Get and the
// caller, was a memory.copy: a call out of Wasm into the runtime's memmove
// (RATIONALE.md).
type timesCodec struct{}

// decodedTimes is what timesCodec.Decode returns a pointer to.
var decodedTimes times

func (timesCodec) Append(dst []byte, t *times) []byte { return encodeTimes(dst, t) }

func (timesCodec) Decode(p []byte) (*times, error) {
	if !decodeTimes(&decodedTimes, p) {
		return nil, errEvent
	}
	return &decodedTimes, nil
}

func (timesCodec) Type() floe.ValueType { return floe.TypeBytes }

// bidCodec stores a bid as encodeBid lays it out, decoded in place.
type bidCodec struct{}

func (bidCodec) Append(dst []byte, b bid) []byte { return encodeBid(dst, b) }

func (bidCodec) Decode(p []byte) (bid, error) {
	b, ok := decodeBid(p)
	if !ok {
		return bid{}, errEvent
	}
	return b, nil
}

func (bidCodec) Type() floe.ValueType { return floe.TypeBytes }

// openingTimes is the times q9Auction builds.
var openingTimes times

// q9Auction opens an auction: it takes the bids that came before it into
// account and sets the timer that closes it.
func q9Auction(ctx *floe.Context, ev []byte, _ floe.Emitter) error {
	var f [auctionFields][]byte
	var v [2]int64
	if !split(ev, f[:]) || !ints(v[:], f[6], f[7]) {
		return errEvent
	}
	// NB: not a local, which Put's codec interface would move to the heap.
	t := &openingTimes
	*t = times{start: v[0], end: v[1]}
	for _, b := range earlyBids.Get(ctx) {
		t.consider(b)
	}
	earlyBids.Clear(ctx)
	auctionTimes.Put(ctx, t)
	openAuction.Put(ctx, ev[2:])
	ctx.RegisterEventTimer(t.end)
	return nil
}

// consider makes b t's best if it is in t's time range and beats the
// best so far, and reports whether it did.
func (t *times) consider(b bid) bool {
	if t.closed || b.dateTime < t.start || b.dateTime > t.end || t.found && !b.beats(t.best) {
		return false
	}
	t.best, t.found = b, true
	return true
}

var bidF [bidFields][]byte

// parseBid reads the bidder, price and dateTime of a bid line
// "B,auction,bidder,price,channel,url,dateTime" in one pass: the leading
// fields from the front, dateTime from the back. It does not scan the
// channel and the url, most of the line, as split would, and it reads
// each digit once: q4 and q9 read every bid, and slicing the fields first
// and then reading them cost twice the loops (RATIONALE.md).
func parseBid(ev []byte) (bid, bool) {
	if len(ev) < 2 || ev[0] != 'B' || ev[1] != ',' {
		return bid{}, false
	}
	_, i, ok := uintField(ev, 2) // the auction
	if !ok {
		return bid{}, false
	}
	bidder, i, ok := uintField(ev, i)
	if !ok {
		return bid{}, false
	}
	price, i, ok := uintField(ev, i)
	if !ok {
		return bid{}, false
	}
	dateTime, ok := uintLast(ev, i)
	if !ok {
		return bid{}, false
	}
	return bid{price: price, dateTime: dateTime, bidder: bidder}, true
}

// uintField reads the non-negative decimal integer of 1 to 18 digits that
// starts at b[i] and ends at a comma, and returns it and the index after
// the comma.
func uintField(b []byte, i int) (int64, int, bool) {
	var v int64
	j := i
	for ; j < len(b); j++ {
		c := b[j]
		if c == ',' {
			break
		}
		if c < '0' || c > '9' {
			return 0, 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if j == i || j-i > 18 || j == len(b) {
		return 0, 0, false
	}
	return v, j + 1, true
}

// uintLast reads the non-negative decimal integer of 1 to 18 digits that
// ends b and follows its last comma, which must be at i or later.
func uintLast(b []byte, i int) (int64, bool) {
	var v int64
	pow := int64(1)
	k := len(b) - 1
	for ; k >= i; k-- {
		c := b[k]
		if c == ',' {
			break
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		v += int64(c-'0') * pow
		pow *= 10
	}
	if k < i || k == len(b)-1 || len(b)-1-k > 18 {
		return 0, false
	}
	return v, true
}

// winningBid takes a bid into account for its open auction, or keeps it
// until its auction comes.
func winningBid(ctx *floe.Context, ev []byte, _ floe.Emitter) error {
	b, ok := parseBid(ev)
	if !ok {
		return errEvent
	}
	t, known := auctionTimes.Get(ctx)
	if !known {
		if closed.has(ctx.Key()) {
			return nil
		}
		if b.dateTime > ctx.Watermark() {
			earlyBids.Append(ctx, b)
			ctx.RegisterEventTimer(earlyBidTimer(b.dateTime))
		}
		return nil
	}
	if t.consider(b) {
		auctionTimes.Put(ctx, t)
	}
	return nil
}

// earlyBidTick is the granularity, in ms of event time, of the timers
// that drop early bids.
const earlyBidTick = 1000

// earlyBidTimer returns the time of the timer that drops an early bid at
// dateTime: dateTime rounded up to a tick, so that the early bids of an
// auction within one tick share one timer (registering it again is free)
// rather than costing a timer and a call each.
//
// NB: a bid kept past its dateTime cannot change the result: its auction,
// if it comes once the watermark has passed the bid, starts after it, and
// consider rejects it.
func earlyBidTimer(dateTime int64) int64 {
	if r := dateTime % earlyBidTick; r > 0 {
		return dateTime - r + earlyBidTick
	} else if r < 0 {
		return dateTime - r
	}
	return dateTime
}

// closeAuction handles a timer of the winning-bid coProcess. At an open
// auction's expires it emits the winner, if any, with line, deletes the
// auction's state and remembers it closed for closedMillis. Without an
// auction it drops the early bids that can no longer count. Other timers
// of a known or closed auction are early bids' and do nothing: the auction
// took those bids when it came. (An auction marked closed in state comes
// from a checkpoint of an older version, which set a timer to forget it.)
func closeAuction(ctx *floe.Context, t floe.Timer, emit floe.Emitter, line func(a []byte, b bid) ([]byte, error)) error {
	closed.forget(t.Timestamp)
	if closed.has(ctx.Key()) {
		return nil
	}
	at, known := auctionTimes.Get(ctx)
	if !known {
		dropEarlyBids(ctx, t.Timestamp)
		return nil
	}
	switch {
	case at.closed && t.Timestamp == at.end+int64(closedMillis):
		auctionTimes.Delete(ctx)
		return nil
	case at.closed || t.Timestamp != at.end:
		return nil
	}
	if at.found {
		a, open := openAuction.Get(ctx)
		if !open {
			return errEvent
		}
		out, err := line(a, at.best)
		if err != nil {
			return err
		}
		emit.Emit(out)
	}
	openAuction.Delete(ctx)
	auctionTimes.Delete(ctx)
	closed.add(ctx.Key(), at.end+int64(closedMillis))
	return nil
}

// dropEarlyBids removes the early bids at or before ts.
func dropEarlyBids(ctx *floe.Context, ts int64) {
	bids := earlyBids.Get(ctx)
	earlyBids.Clear(ctx)
	for _, b := range bids {
		if b.dateTime > ts {
			earlyBids.Append(ctx, b)
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
