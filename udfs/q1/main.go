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
// The hot path allocates nothing: fields are found by scanning the bytes for
// commas (bytes.IndexByte) and the output is built in a reused package-level
// buffer, which the SDK copies when the function returns.
package main

import (
	"bytes"
	"errors"
	"strconv"

	floe "github.com/floe-stream/floe/sdk/go"
)

func init() {
	floe.Map("q1", q1)
}

var (
	errFields = errors.New("q1: a bid has 6 comma-separated fields")
	errPrice  = errors.New("q1: the price is not an integer of 1 to 18 digits")
)

// out holds the output record being built.
var out []byte

// q1 re-encodes a bid with its price in euros.
func q1(bid []byte) ([]byte, error) {
	var commas [5]int
	off := 0
	for i := range commas {
		j := bytes.IndexByte(bid[off:], ',')
		if j < 0 {
			return nil, errFields
		}
		commas[i] = off + j
		off += j + 1
	}
	if bytes.IndexByte(bid[off:], ',') >= 0 {
		return nil, errFields
	}
	price, ok := parsePrice(bid[commas[1]+1 : commas[2]])
	if !ok {
		return nil, errPrice
	}
	out = append(out[:0], bid[:commas[1]+1]...)
	out = strconv.AppendInt(out, toEuros(price), 10)
	out = append(out, bid[commas[2]:]...)
	return out, nil
}

// parsePrice reads a non-negative decimal integer of 1 to 18 digits.
func parsePrice(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var p int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		p = p*10 + int64(c-'0')
	}
	return p, true
}

// toEuros returns dollars × 0.908 rounded toward zero.
func toEuros(dollars int64) int64 {
	return dollars/1000*908 + dollars%1000*908/1000
}

func main() {}
