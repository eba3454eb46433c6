package nexmark

import (
	"fmt"
	"strconv"
	"strings"
)

// Person is a "P" event: a new user of the auction site.
type Person struct {
	ID                                   int64
	Name, Email, CreditCard, City, State string
	DateTime                             int64
}

// Auction is an "A" event: a new auction.
type Auction struct {
	ID                                  int64
	ItemName, Description               string
	InitialBid, Reserve                 int64
	DateTime, Expires, Seller, Category int64
}

// Bid is a "B" event: a bid on an auction.
type Bid struct {
	Auction, Bidder, Price int64
	Channel, URL           string
	DateTime               int64
}

// Events holds the events of a stream by kind, each kind in stream order.
type Events struct {
	Persons  []Person
	Auctions []Auction
	Bids     []Bid
}

// Parse reads event lines. It fails on the first line that is not a
// well-formed person, auction or bid, naming its index.
func Parse(lines []string) (*Events, error) {
	e := &Events{}
	for i, line := range lines {
		if err := e.add(line); err != nil {
			return nil, fmt.Errorf("nexmark: line %d %q: %w", i, line, err)
		}
	}
	return e, nil
}

// add parses one line and appends its event.
func (e *Events) add(line string) error {
	f := strings.Split(line, ",")
	var p fieldParser
	switch {
	case f[0] == "P" && len(f) == 8:
		e.Persons = append(e.Persons, Person{
			ID: p.int(f[1]), Name: f[2], Email: f[3], CreditCard: f[4], City: f[5], State: f[6], DateTime: p.int(f[7]),
		})
	case f[0] == "A" && len(f) == 10:
		e.Auctions = append(e.Auctions, Auction{
			ID: p.int(f[1]), ItemName: f[2], Description: f[3], InitialBid: p.int(f[4]), Reserve: p.int(f[5]),
			DateTime: p.int(f[6]), Expires: p.int(f[7]), Seller: p.int(f[8]), Category: p.int(f[9]),
		})
	case f[0] == "B" && len(f) == 7:
		e.Bids = append(e.Bids, Bid{
			Auction: p.int(f[1]), Bidder: p.int(f[2]), Price: p.int(f[3]), Channel: f[4], URL: f[5], DateTime: p.int(f[6]),
		})
	default:
		return fmt.Errorf("want P with 8 fields, A with 10 or B with 7, got %s with %d", f[0], len(f))
	}
	return p.err
}

// fieldParser parses integer fields, keeping the first error.
type fieldParser struct {
	err error
}

func (p *fieldParser) int(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("field %q is not an integer", s)
	}
	return v
}
