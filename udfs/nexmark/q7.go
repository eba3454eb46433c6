package main

import floe "github.com/floe-stream/floe/sdk/go"

// q7's first step: a bid as "windowStart,auction,bidder,price", its
// tumbling window's start (bid-window) and the fields max-bids keeps.
// q7.yaml keys it by the window (csv:0); max-bids reads fields 1 to 3 of
// it as it read them in the whole bid. A filter then a key function was
// two Wasm calls per batch, and the window's Add got whole bids
// (RATIONALE.md, "q5 and q7 take only the fields they use").

func init() {
	floe.FlatMap("window-bids", windowBids)
}

// windowBids emits a bid's window start and auction, bidder and price;
// other events pass nothing.
func windowBids(ev []byte, emit floe.Emitter) error {
	if !isBid(ev) {
		return nil
	}
	ts, ok := parseUint(field(ev, 6))
	if !ok {
		return errEvent
	}
	out = floe.AppendInt(out[:0], ts-ts%int64(windowMillis))
	emit.Emit(append(append(out, ','), fields(ev, 1, 3)...))
	return nil
}
