// Command q1 is Nexmark query 1 as a Floe operator: it converts each bid's
// price from dollars to euros. The benchmark harness (tests/bench) runs it
// next to the same function written in native Go.
//
// A bid is the CSV line "auction,bidder,price,channel,url,dateTime" with
// price a non-negative integer of at most 18 digits. The output is the same
// line with price replaced by price × 0.908 rounded toward zero, computed in
// integers as price/1000*908 + price%1000*908/1000 (exact, and free of
// overflow).
//
// The hot path allocates nothing: the price's commas are found with
// floe.IndexAll and the rest counted with floe.Count, the price is written
// with floe.AppendInt (the SDK's forms of bytes.IndexByte, bytes.Count and
// strconv.AppendInt that are cheap in Wasm), and the output is appended
// straight to the SDK's output buffer (floe.MapAppend), so it is not copied
// again.
package main

import (
	floe "github.com/floe-stream/floe/sdk/go"
	"github.com/floe-stream/floe/udfs/internal/nexmark"
)

func init() { floe.MapAppend("q1", nexmark.Q1) }

func main() {}
