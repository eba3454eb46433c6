package main

import floe "github.com/floe-stream/floe/sdk/go"

// q10, log to file system (Flink's q10): "auction,bidder,price,dateTime"
// for every bid, written by a file sink whose buckets (q10.yaml) put each
// line under dt=<date>/hm=<hour:minute> of its event time, as Flink's
// PARTITIONED BY (dt, hm). NB: Flink's rows also carry the bid's extra
// field, which Floe's bids do not have.

func init() {
	floe.FlatMap("q10", q10)
}

func q10(ev []byte, emit floe.Emitter) error {
	if !split(ev, bidF[:]) || string(bidF[0]) != "B" {
		return errEvent
	}
	line = append(append(append(append(line[:0], bidF[1]...), ','), bidF[2]...), ',')
	line = append(append(append(line, bidF[3]...), ','), bidF[6]...)
	emit.Emit(line)
	return nil
}
