package main

import (
	"bytes"

	floe "github.com/floe-stream/floe/sdk/go"
)

// q20, expand bid with auction: every bid on an auction of category 10,
// with the auction's fields: the bid's line without its "B," and the
// auction's without "A,id,", as
// "auction,bidder,price,channel,url,dateTime,itemName,description,initialBid,reserve,dateTime,expires,seller,category".
// It is Flink's regular (unwindowed) join of bids and auctions on
// auction = id: a coProcess keyed by auction id, auctions through
// q20-auction and bids through q20-bid. The fields of an auction of
// category 10 stay in state for good, and a mark for every other auction,
// so that its bids are dropped; a bid whose auction has not come yet waits
// in the auction's pending list, as Flink keeps both sides of the join.

func init() {
	floe.Process("q20-auction", q20Auction)
	floe.Process("q20-bid", q20Bid)
}

var (
	// q20Auction holds an auction's fields after its id, or q20Other for
	// an auction of another category.
	q20Item = floe.NewValueState("q20-auction", floe.Bytes)
	// q20Waiting holds the bids, without their "B,", whose auction has not
	// come.
	q20Waiting = floe.NewListState("q20-waiting", floe.Bytes)
)

// q20Other marks an auction of a category other than 10.
var q20Other = []byte("-")

var auctionF [auctionFields][]byte

// q20Auction keeps an auction and joins the bids waiting for it.
func q20Auction(ctx *floe.Context, ev []byte, emit floe.Emitter) error {
	if !split(ev, auctionF[:]) {
		return errEvent
	}
	item := q20Other
	if bytes.Equal(auctionF[9], []byte("10")) {
		item = ev[len(auctionF[0])+len(auctionF[1])+2:]
		for _, bid := range q20Waiting.Get(ctx) {
			emit.Emit(q20Line(bid, item))
		}
	}
	q20Item.Put(ctx, item)
	q20Waiting.Clear(ctx)
	return nil
}

// q20Bid joins a bid with its auction, or waits for it.
func q20Bid(ctx *floe.Context, ev []byte, emit floe.Emitter) error {
	if len(ev) < 2 || ev[0] != 'B' || ev[1] != ',' {
		return errEvent
	}
	item, ok := q20Item.Get(ctx)
	switch {
	case !ok:
		q20Waiting.Append(ctx, ev[2:])
	case !bytes.Equal(item, q20Other):
		emit.Emit(q20Line(ev[2:], item))
	}
	return nil
}

// q20Line returns "bid,item" in a reused buffer.
func q20Line(bid, item []byte) []byte {
	line = append(append(append(line[:0], bid...), ','), item...)
	return line
}
