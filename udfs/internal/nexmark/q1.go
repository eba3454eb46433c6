// Package nexmark holds the Nexmark queries' logic shared by the example
// operators: udfs/q1 and the conformance suite's q1 run the same code.
//
// A bid is the CSV line "auction,bidder,price,channel,url,dateTime" with
// price a non-negative integer of at most 18 digits.
package nexmark

import (
	"errors"

	floe "github.com/floe-stream/floe/sdk/go"
)

var (
	errFields = errors.New("q1: a bid has 6 comma-separated fields")
	errPrice  = errors.New("q1: the price is not an integer of 1 to 18 digits")
)

// Q1 appends to out the bid with its price in euros and returns it.
func Q1(out, bid []byte) ([]byte, error) {
	// The price's commas, and then the count of the rest: two.
	var commas [3]int
	if floe.IndexAll(bid, ',', commas[:]) != 3 || floe.Count(bid[commas[2]+1:], ',') != 2 {
		return nil, errFields
	}
	price, ok := parsePrice(bid[commas[1]+1 : commas[2]])
	if !ok {
		return nil, errPrice
	}
	out = append(out, bid[:commas[1]+1]...)
	out = floe.AppendInt(out, toEuros(price))
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
