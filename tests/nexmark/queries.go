package nexmark

import (
	"fmt"
	"slices"
)

// The queries' parameters.
const (
	// WindowSize is the size of the windows of q5, q7 and q8, in ms.
	WindowSize = 10_000
	// Q5Slide is how often a q5 window starts, in ms.
	Q5Slide = 2_000
	// Q2Modulus selects q2's auctions: those whose id it divides.
	Q2Modulus = 123
)

// Q1 returns every bid with its price converted to euros.
func Q1(e *Events) []string {
	var out []string
	for _, b := range e.Bids {
		out = append(out, fmt.Sprintf("%d,%d,%d,%s,%s,%d", b.Auction, b.Bidder, Euros(b.Price), b.Channel, b.URL, b.DateTime))
	}
	return sorted(out)
}

// Euros converts a price in dollar cents to euro cents at 0.908, rounded
// toward zero, without overflow.
func Euros(price int64) int64 {
	return price/1000*908 + price%1000*908/1000
}

// Q2 returns the auction and price of the bids on auctions whose id is a
// multiple of Q2Modulus.
func Q2(e *Events) []string {
	var out []string
	for _, b := range e.Bids {
		if b.Auction%Q2Modulus == 0 {
			out = append(out, fmt.Sprintf("%d,%d", b.Auction, b.Price))
		}
	}
	return sorted(out)
}

// Q5 returns, for each sliding window of WindowSize every Q5Slide with a
// bid, the auctions with the most bids in the window and their count.
func Q5(e *Events) []string {
	counts := map[int64]map[int64]int{} // window start -> auction -> bids
	for _, b := range e.Bids {
		for _, start := range slidingStarts(b.DateTime, WindowSize, Q5Slide) {
			if counts[start] == nil {
				counts[start] = map[int64]int{}
			}
			counts[start][b.Auction]++
		}
	}
	var out []string
	for start, byAuction := range counts {
		most := 0
		for _, c := range byAuction {
			most = max(most, c)
		}
		for auction, c := range byAuction {
			if c == most {
				out = append(out, fmt.Sprintf("%d,%d,%d", start+WindowSize, auction, c))
			}
		}
	}
	return sorted(out)
}

// Q7 returns, for each tumbling window of WindowSize with a bid, the bids
// with the highest price in the window.
func Q7(e *Events) []string {
	highest := map[int64]int64{} // window start -> highest price
	for _, b := range e.Bids {
		start := tumblingStart(b.DateTime, WindowSize)
		if p, ok := highest[start]; !ok || b.Price > p {
			highest[start] = b.Price
		}
	}
	var out []string
	for _, b := range e.Bids {
		start := tumblingStart(b.DateTime, WindowSize)
		if b.Price == highest[start] {
			out = append(out, fmt.Sprintf("%d,%d,%d,%d", start+WindowSize, b.Auction, b.Bidder, b.Price))
		}
	}
	return sorted(out)
}

// Q8 returns, for each tumbling window of WindowSize, the persons created in
// the window who opened an auction in the same window.
func Q8(e *Events) []string {
	type key struct{ start, person int64 }
	sold := map[key]bool{}
	for _, a := range e.Auctions {
		sold[key{tumblingStart(a.DateTime, WindowSize), a.Seller}] = true
	}
	var out []string
	for _, p := range e.Persons {
		start := tumblingStart(p.DateTime, WindowSize)
		if sold[key{start, p.ID}] {
			out = append(out, fmt.Sprintf("%d,%d,%s", start+WindowSize, p.ID, p.Name))
		}
	}
	return slices.Compact(sorted(out))
}

// tumblingStart returns the start of the tumbling window of size that holds
// ts: the greatest multiple of size not above ts.
func tumblingStart(ts, size int64) int64 {
	m := ts % size
	if m < 0 {
		m += size
	}
	return ts - m
}

// slidingStarts returns the starts of the sliding windows of size every
// slide that hold ts: the multiples of slide in (ts-size, ts].
func slidingStarts(ts, size, slide int64) []int64 {
	var starts []int64
	for s := tumblingStart(ts, slide); s > ts-size; s -= slide {
		starts = append(starts, s)
	}
	return starts
}

// sorted sorts lines in place and returns them, or an empty, non-nil slice
// for no lines.
func sorted(lines []string) []string {
	if lines == nil {
		return []string{}
	}
	slices.Sort(lines)
	return lines
}
