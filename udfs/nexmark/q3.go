package main

import (
	"bytes"

	floe "github.com/floe-stream/floe/sdk/go"
)

// q3, local item suggestion: the persons of Oregon, Idaho or California
// who sell an item of category 10, as "name,city,state,auctionId", once
// per such auction. It is Flink's regular join of persons and auctions on
// seller = id: a coProcess keyed by person id, persons (filtered by
// q3-persons) through q3-person and auctions (filtered by q3-auctions)
// through q3-auction. A person's name, city and state stay in state for
// good; an auction whose seller has not come yet waits in the seller's
// pending list, so the order in which the two streams arrive does not
// change the result.

func init() {
	floe.Filter("q3-persons", q3Persons)
	floe.Filter("q3-auctions", q3Auctions)
	floe.Process("q3-person", q3Person)
	floe.Process("q3-auction", q3Auction)
}

var (
	// q3Seller holds a selected person's "name,city,state".
	q3Seller = floe.NewValueState("q3-seller", floe.Bytes)
	// q3Waiting holds the ids of auctions of category 10 whose seller has
	// not come.
	q3Waiting = floe.NewListState("q3-waiting", floe.Bytes)
)

var personF [personFields][]byte

// q3Persons keeps the persons of OR, ID and CA.
func q3Persons(ev []byte) (bool, error) {
	if !split(ev, personF[:]) || personF[0][0] != 'P' {
		return false, errEvent
	}
	s := personF[6]
	return bytes.Equal(s, []byte("OR")) || bytes.Equal(s, []byte("ID")) || bytes.Equal(s, []byte("CA")), nil
}

// q3Auctions keeps the auctions of category 10.
func q3Auctions(ev []byte) (bool, error) {
	if !split(ev, auctionF[:]) || auctionF[0][0] != 'A' {
		return false, errEvent
	}
	return bytes.Equal(auctionF[9], []byte("10")), nil
}

// q3Person keeps a person and joins the auctions waiting for them.
func q3Person(ctx *floe.Context, ev []byte, emit floe.Emitter) error {
	if !split(ev, personF[:]) {
		return errEvent
	}
	seller := append(append(append(append(append(out[:0], personF[2]...), ','), personF[5]...), ','), personF[6]...)
	q3Seller.Put(ctx, seller)
	for _, id := range q3Waiting.Get(ctx) {
		emit.Emit(q3Line(seller, id))
	}
	q3Waiting.Clear(ctx)
	return nil
}

// q3Auction joins an auction with its seller, or waits for them.
func q3Auction(ctx *floe.Context, ev []byte, emit floe.Emitter) error {
	if !split(ev, auctionF[:]) {
		return errEvent
	}
	if seller, ok := q3Seller.Get(ctx); ok {
		emit.Emit(q3Line(seller, auctionF[1]))
		return nil
	}
	q3Waiting.Append(ctx, auctionF[1])
	return nil
}

// q3Line returns "name,city,state,auctionId" in a reused buffer.
func q3Line(seller, id []byte) []byte {
	line = append(append(append(line[:0], seller...), ','), id...)
	return line
}

// line is a reused output buffer; Emit copies what it is given.
var line []byte
