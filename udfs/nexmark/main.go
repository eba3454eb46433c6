// Command nexmark holds the Nexmark benchmark queries as Floe operators,
// over the event lines of the nexmark source (host/connector/nexmark):
//
//	person:  P,id,name,emailAddress,creditCard,city,state,dateTime
//	auction: A,id,itemName,description,initialBid,reserve,dateTime,expires,seller,category
//	bid:     B,auction,bidder,price,channel,url,dateTime
//
// Every record's timestamp is its event time. The job specs next to this
// file wire the queries up. q1, q2, q5, q7 and q8 read the mixed stream
// from one source; the others read persons, auctions and bids as separate
// sources (the source's stream field), as Flink's Nexmark reads three
// topics; q3, q4, q6, q9 and q20 join two of them in a coProcess (a
// two-input keyed operator whose two functions share the key's state and
// timers), and q13 joins bids with a side input file the same way.
//
//   - q0, pass through: the bids as they come (no Wasm).
//   - q1, currency conversion: every bid with its price in euros.
//   - q2, selection: "auction,price" of the bids on every 123rd auction.
//   - q3, local item suggestion (q3.go): "name,city,state,auctionId" for
//     each auction of category 10 sold by a person of OR, ID or CA; a
//     regular join on seller = id, persons' fields kept for good, auctions
//     that come before their seller kept until it comes.
//   - q4, average closing price per category (winning.go, q4.go): each
//     auction's winning bid at its expiry, then per category
//     "windowEnd,category,average" at the end of each 10 s window in which
//     one of its auctions closed, over all its auctions closed so far.
//   - q5, hot items: sliding windows of 10 s every 2 s, then per window
//     end the auctions with the most bids (best.go's top-counts).
//   - q6, average selling price by seller (q6.go): at each auction's
//     close with a winner, the average winning price of its seller's last
//     10 closed auctions, applied in order of expiry by event-time timers.
//   - q7, highest bid: tumbling windows of 10 s, each keeping its
//     highest bids (best.go's max-bids).
//   - q8, new users: a window join of persons and auctions.
//   - q9, winning bids (winning.go): each auction's line and its winning
//     bid, the highest between its start and expiry (both included), the
//     earliest of equal prices, emitted by an event-time timer at expiry.
//   - q10, log to file system (q10.go): every bid as "auction,bidder,
//     price,dateTime", written by the file sink into the bucket
//     dt=<date>/hm=<hour:minute> of its event time (q10.yaml's buckets),
//     as Flink's PARTITIONED BY (dt, hm).
//   - q11, user sessions (q11.go): "bidder,bids,start,end" per session of
//     a bidder's bids with gaps of at most 10 s, in a session window.
//   - q12, bids per bidder in processing-time windows (q12.yaml): q11's
//     counting function in tumbling windows of the task's clock, so only
//     the totals per bidder are reproducible.
//   - q13, bounded side input join (q13.go): each bid whose auction id
//     modulo 10,000 is a key of a side input file, with the key's value;
//     the file is a second, bounded source, which holds the join's event
//     time back until it ends, so a bid still unmatched when the
//     watermark passes it has no match.
//   - q17, auction statistics report (q17.go): per auction and day, the
//     bids in each price range and the lowest, highest, average and total
//     price, in tumbling windows of a day.
//   - q14, calculation (q14.go): "auction,bidder,price,bidTimeType,
//     dateTime,cCounts" for the bids priced between 1,000,000 and
//     50,000,000 after conversion to euros; cCounts counts the c's of the
//     url, as Floe's bids have no extra field.
//   - q15 and q16, bidding and channel statistics (q15.go): per day, or
//     per channel and day, the bids and the distinct bidders and auctions
//     in total and per price range, over a process window of a day;
//     emitted once when the watermark passes the day, where Flink's
//     GROUP BY updates them.
//   - q18, find last bid, and q19, auction top-10 price (q18.go): each
//     bidder's last bid on each auction, and each auction's 10 highest
//     bids with their rank, in keyed state, ties broken by the bid line;
//     emitted by an event-time timer when the input ends, where Flink's
//     ROW_NUMBER results update.
//   - q20, expand bid with auction (q20.go): every bid on an auction of
//     category 10 with the auction's fields; a regular join on
//     auction = id.
//   - q21, add channel id, and q22, get URL directories (urls.go): each
//     bid with its channel's id or its url's first three directories.
//
// The joins are written with keyed state and event-time timers alone, not
// with a join operator: the key is the join key, each side keeps what the
// other may still need, and the watermark tells when something can no
// longer match. tests/nexmark holds a brute-force form of every query,
// which the tests in minicluster and tests/cluster compare line for line
// with these jobs' output.
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
