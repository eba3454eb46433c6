// Command nexmark holds the Nexmark benchmark queries as Floe operators,
// over the event lines of the nexmark source (host/connector/nexmark):
//
//	person:  P,id,name,emailAddress,creditCard,city,state,dateTime
//	auction: A,id,itemName,description,initialBid,reserve,dateTime,expires,seller,category
//	bid:     B,auction,bidder,price,channel,url,dateTime
//
// The job specs next to this file wire them up: q1 (currency conversion),
// q2 (selection), q5 (hot items: sliding windows), q7 (highest bid:
// tumbling windows) and q8 (new users: a window join of persons and
// auctions). Every record's timestamp is its event time.
package main

import (
	"bytes"
	"errors"
	"strconv"

	floe "github.com/floe-stream/floe/sdk/go"
	"github.com/floe-stream/floe/udfs/internal/nexmark"
)

func init() {
	floe.Filter("bids", func(ev []byte) (bool, error) { return bytes.HasPrefix(ev, []byte("B,")), nil })
	floe.FlatMap("q1", q1)
	floe.FlatMap("q2", q2)
	floe.KeySelector("bid-auction", bidAuction)
	floe.Aggregate("count", floe.Int64, floe.AggregateFunc[int64]{
		Create: func() int64 { return 0 },
		Add:    func(n int64, _ floe.Record) int64 { return n + 1 },
		Merge:  func(a, b int64) int64 { return a + b },
		Result: countResult,
	})
	floe.ProcessWindow("hot-items", hotItems)
	floe.KeySelector("bid-window", bidWindow)
	floe.ProcessWindow("max-bid", maxBid)
	floe.Filter("persons-auctions", func(ev []byte) (bool, error) {
		return bytes.HasPrefix(ev, []byte("P,")) || bytes.HasPrefix(ev, []byte("A,")), nil
	})
	floe.KeySelector("person", person)
	floe.ProcessWindow("new-persons", newPersons)
	floe.OnOpen(func(p floe.Params) error {
		var err error
		windowMillis, err = p.Int("window_ms", 10_000)
		return err
	})
}

var errEvent = errors.New("nexmark: malformed event")

// field returns the n-th comma-separated field of line.
func field(line []byte, n int) []byte {
	for ; n > 0; n-- {
		i := floe.IndexByte(line, ',')
		if i < 0 {
			return nil
		}
		line = line[i+1:]
	}
	if i := floe.IndexByte(line, ','); i >= 0 {
		return line[:i]
	}
	return line
}

var out []byte

// q1 converts a bid's price to euros; other events pass nothing.
func q1(ev []byte, emit floe.Emitter) error {
	if !bytes.HasPrefix(ev, []byte("B,")) {
		return nil
	}
	var err error
	if out, err = nexmark.Q1(out[:0], ev[2:]); err != nil {
		return err
	}
	emit.Emit(out)
	return nil
}

// q2 selects the bids of every 123rd auction, as "auction,price".
func q2(ev []byte, emit floe.Emitter) error {
	if !bytes.HasPrefix(ev, []byte("B,")) {
		return nil
	}
	auction, err := strconv.ParseInt(string(field(ev, 1)), 10, 64)
	if err != nil {
		return errEvent
	}
	if auction%123 != 0 {
		return nil
	}
	out = append(append(append(out[:0], field(ev, 1)...), ','), field(ev, 3)...)
	emit.Emit(out)
	return nil
}

func bidAuction(ev []byte) ([]byte, error) { return field(ev, 1), nil }

// countResult emits "windowEnd,key,count".
func countResult(key []byte, w floe.Window, n int64, emit floe.Emitter) error {
	out = strconv.AppendInt(out[:0], w.End, 10)
	out = append(append(append(out, ','), key...), ',')
	emit.Emit(strconv.AppendInt(out, n, 10))
	return nil
}

// hotItems gets the "windowEnd,auction,count" lines of one window end and
// emits those with the highest count.
func hotItems(_ []byte, _ floe.Window, recs []floe.Record, emit floe.Emitter) error {
	best := int64(-1)
	for _, r := range recs {
		n, err := strconv.ParseInt(string(field(r.Value, 2)), 10, 64)
		if err != nil {
			return errEvent
		}
		best = max(best, n)
	}
	for _, r := range recs {
		if n, _ := strconv.ParseInt(string(field(r.Value, 2)), 10, 64); n == best {
			emit.Emit(r.Value)
		}
	}
	return nil
}

// windowMillis is the tumbling window of q7 and q8.
var windowMillis int

// bidWindow keys a bid by the start of its tumbling window.
func bidWindow(ev []byte) ([]byte, error) {
	ts, err := strconv.ParseInt(string(field(ev, 6)), 10, 64)
	if err != nil {
		return nil, errEvent
	}
	return strconv.AppendInt(nil, ts-ts%int64(windowMillis), 10), nil
}

// maxBid emits "windowEnd,auction,bidder,price" for the highest bids.
func maxBid(_ []byte, w floe.Window, recs []floe.Record, emit floe.Emitter) error {
	best := int64(-1)
	for _, r := range recs {
		p, err := strconv.ParseInt(string(field(r.Value, 3)), 10, 64)
		if err != nil {
			return errEvent
		}
		best = max(best, p)
	}
	for _, r := range recs {
		if p, _ := strconv.ParseInt(string(field(r.Value, 3)), 10, 64); p == best {
			out = strconv.AppendInt(out[:0], w.End, 10)
			out = append(append(append(append(append(out, ','), field(r.Value, 1)...), ','), field(r.Value, 2)...), ',')
			emit.Emit(append(out, field(r.Value, 3)...))
		}
	}
	return nil
}

// person keys a person by its id and an auction by its seller.
func person(ev []byte) ([]byte, error) {
	if bytes.HasPrefix(ev, []byte("P,")) {
		return field(ev, 1), nil
	}
	return field(ev, 8), nil
}

// newPersons emits "windowEnd,personId,name" when a person and an auction
// they sell are in the same window.
func newPersons(key []byte, w floe.Window, recs []floe.Record, emit floe.Emitter) error {
	var name []byte
	seen, sold := false, false
	for _, r := range recs {
		if bytes.HasPrefix(r.Value, []byte("P,")) {
			seen, name = true, field(r.Value, 2)
		} else {
			sold = true
		}
	}
	if seen && sold {
		out = strconv.AppendInt(out[:0], w.End, 10)
		out = append(append(append(append(out, ','), key...), ','), name...)
		emit.Emit(out)
	}
	return nil
}

func main() {}
