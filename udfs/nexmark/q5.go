package main

import floe "github.com/floe-stream/floe/sdk/go"

// q5's first step: a bid's auction id, the one field q5 uses. q5.yaml
// keys it by itself (csv:0) and counts it per sliding window. A filter of
// the whole bids then a key function was two Wasm calls per batch, and
// the count's Add got each whole bid five times, once per window it is in
// (RATIONALE.md, "q5 and q7 take only the fields they use").

func init() {
	floe.FlatMap("bid-auctions", bidAuctions)
}

// bidAuctions emits the auction of a bid; other events pass nothing.
func bidAuctions(ev []byte, emit floe.Emitter) error {
	if !isBid(ev) {
		return nil
	}
	emit.Emit(field(ev, 1))
	return nil
}

// isBid tells a bid from the other events.
func isBid(ev []byte) bool { return len(ev) >= 2 && ev[0] == 'B' && ev[1] == ',' }
