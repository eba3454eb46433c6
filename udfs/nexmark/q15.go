package main

import (
	"time"

	floe "github.com/floe-stream/floe/sdk/go"
)

// q15, bidding statistics report (Flink's q15), and q16, channel
// statistics report (Flink's q16). q15 emits per UTC day
// "day,bids,rank1,rank2,rank3,bidders,rank1,rank2,rank3,auctions,rank1,
// rank2,rank3": how many bids in total and priced below 10,000, from 10,000
// to below 1,000,000 and from 1,000,000 (cents), and how many distinct
// bidders and auctions in total and among the bids of each range. q16 emits
// per channel and day "channel,day,minute," and the same figures, with
// minute the latest "HH:mm" of the day's bids on the channel. The specs
// key bids by day (q15) or channel (q16) into tumbling windows of a day,
// and these functions count over all the window's bids at its end. NB:
// Flink's results are updating (a GROUP BY without a window); Floe emits
// each day's final figures once, when the watermark passes the day.

func init() {
	floe.KeySelector("bid-day", bidDay)
	floe.ProcessWindow("q15", func(_ []byte, w floe.Window, recs []floe.Record, emit floe.Emitter) error {
		return dayStats(nil, w, recs, emit)
	})
	floe.ProcessWindow("q16", dayStats)
}

// bidDay keys a bid by its UTC day, "2006-01-02".
func bidDay(ev []byte) ([]byte, error) {
	if !split(ev, bidF[:]) {
		return nil, errEvent
	}
	ts, ok := atoi(bidF[6])
	if !ok {
		return nil, errEvent
	}
	return time.UnixMilli(ts).UTC().AppendFormat(nil, time.DateOnly), nil
}

// priceRank is 1, 2 or 3 for q15's three price ranges.
func priceRank(p int64) int {
	switch {
	case p < 10_000:
		return 1
	case p < 1_000_000:
		return 2
	}
	return 3
}

// dayStats emits the window's figures, after "channel,day,minute," if
// channel is not nil and after "day," if it is.
func dayStats(channel []byte, w floe.Window, recs []floe.Record, emit floe.Emitter) error {
	var bids [4]int64
	bidders, auctions := map[int64]uint8{}, map[int64]uint8{} // ranks seen, as bits 1 to 3
	var minute []byte
	for _, r := range recs {
		if !split(r.Value, bidF[:]) {
			return errEvent
		}
		var v [4]int64 // auction, bidder, price, dateTime
		if !ints(v[:], bidF[1], bidF[2], bidF[3], bidF[6]) {
			return errEvent
		}
		rank := priceRank(v[2])
		bids[0]++
		bids[rank]++
		bidders[v[1]] |= 1 << rank
		auctions[v[0]] |= 1 << rank
		if m := time.UnixMilli(v[3]).UTC().AppendFormat(nil, "15:04"); string(m) > string(minute) {
			minute = m
		}
	}
	if bids[0] == 0 {
		return nil
	}
	line = line[:0]
	if channel != nil {
		line = append(append(line, channel...), ',')
	}
	line = time.UnixMilli(w.Start).UTC().AppendFormat(line, time.DateOnly)
	if channel != nil {
		line = append(append(line, ','), minute...)
	}
	for _, n := range bids {
		line = floe.AppendInt(append(line, ','), n)
	}
	for _, seen := range []map[int64]uint8{bidders, auctions} {
		var n [4]int64
		for _, bits := range seen {
			n[0]++
			for r := 1; r <= 3; r++ {
				if bits&(1<<r) != 0 {
					n[r]++
				}
			}
		}
		for _, c := range n {
			line = floe.AppendInt(append(line, ','), c)
		}
	}
	emit.Emit(line)
	return nil
}
