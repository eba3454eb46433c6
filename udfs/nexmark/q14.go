package main

import (
	"time"

	floe "github.com/floe-stream/floe/sdk/go"
)

// q14, calculation (Flink's q14): "auction,bidder,price,bidTimeType,
// dateTime,cCounts" for each bid whose price times 0.908 lies strictly
// between 1,000,000 and 50,000,000: the price times 0.908 rounded toward
// zero; bidTimeType "dayTime" for UTC hours 8 to 18, "nightTime" for hours
// up to 6 and from 20, "otherTime" else; cCounts the number of 'c' in the
// bid's url. NB: Flink counts the c's of the bid's extra field, which
// Floe's bids do not have, and keeps the price as a double.

func init() {
	floe.FlatMap("q14", q14)
}

// q14Low and q14High bound 908 × price (0.908 × price × 1000).
const (
	q14Low  = 1_000_000 * 1000
	q14High = 50_000_000 * 1000
)

func q14(ev []byte, emit floe.Emitter) error {
	if !split(ev, bidF[:]) {
		return errEvent
	}
	var v [4]int64 // auction, bidder, price, dateTime
	if !ints(v[:], bidF[1], bidF[2], bidF[3], bidF[6]) {
		return errEvent
	}
	if p := v[2] * 908; p <= q14Low || p >= q14High {
		return nil
	}
	line = append(append(append(append(line[:0], bidF[1]...), ','), bidF[2]...), ',')
	line = floe.AppendInt(line, v[2]*908/1000)
	line = append(append(append(line, ','), bidTimeType(time.UnixMilli(v[3]).UTC().Hour())...), ',')
	line = append(append(line, bidF[6]...), ',')
	c := 0
	for _, b := range bidF[5] {
		if b == 'c' {
			c++
		}
	}
	emit.Emit(floe.AppendInt(line, int64(c)))
	return nil
}

// bidTimeType is q14's name for a bid's hour of the day.
func bidTimeType(h int) string {
	switch {
	case h >= 8 && h <= 18:
		return "dayTime"
	case h <= 6 || h >= 20:
		return "nightTime"
	}
	return "otherTime"
}
