package nexmark

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// bidLine is a bid's line without its "B,".
func bidLine(b Bid) string {
	return fmt.Sprintf("%d,%d,%d,%s,%s,%d", b.Auction, b.Bidder, b.Price, b.Channel, b.URL, b.DateTime)
}

// Q14 returns "auction,bidder,price,bidTimeType,dateTime,cCounts" for each
// bid whose price × 0.908 is above 1,000,000 and below 50,000,000: that
// product rounded toward zero, "dayTime" if the bid's UTC hour is 8 to 18,
// "nightTime" if it is at most 6 or at least 20, else "otherTime", and the
// count of 'c' in its url.
func Q14(e *Events) []string {
	var out []string
	for _, b := range e.Bids {
		if b.Price*908 <= 1_000_000_000 || b.Price*908 >= 50_000_000_000 {
			continue
		}
		kind := "otherTime"
		switch h := time.UnixMilli(b.DateTime).UTC().Hour(); {
		case 8 <= h && h <= 18:
			kind = "dayTime"
		case h <= 6 || h >= 20:
			kind = "nightTime"
		}
		out = append(out, fmt.Sprintf("%d,%d,%d,%s,%d,%d", b.Auction, b.Bidder, b.Price*908/1000, kind, b.DateTime, strings.Count(b.URL, "c")))
	}
	return sorted(out)
}

// dayFigures are q15's and q16's figures for one group of bids: bids,
// distinct bidders and distinct auctions, each in total and per price
// range (below 10,000, to below 1,000,000, from 1,000,000).
type dayFigures struct {
	bids              [4]int
	bidders, auctions [4]map[int64]bool
	minute            string
}

func (f *dayFigures) add(b Bid) {
	r := 3
	if b.Price < 10_000 {
		r = 1
	} else if b.Price < 1_000_000 {
		r = 2
	}
	for _, i := range []int{0, r} {
		if f.bidders[i] == nil {
			f.bidders[i], f.auctions[i] = map[int64]bool{}, map[int64]bool{}
		}
		f.bids[i]++
		f.bidders[i][b.Bidder] = true
		f.auctions[i][b.Auction] = true
	}
	f.minute = max(f.minute, time.UnixMilli(b.DateTime).UTC().Format("15:04"))
}

func (f *dayFigures) String() string {
	var s []string
	for _, n := range f.bids {
		s = append(s, fmt.Sprint(n))
	}
	for _, m := range append(f.bidders[:], f.auctions[:]...) {
		s = append(s, fmt.Sprint(len(m)))
	}
	return strings.Join(s, ",")
}

// Q15 returns per UTC day of the bids "day," and their figures: the
// number of bids, then of distinct bidders, then of distinct auctions,
// each in total and among the bids priced below 10,000, from 10,000 to
// below 1,000,000 and from 1,000,000.
func Q15(e *Events) []string {
	days := map[string]*dayFigures{}
	for _, b := range e.Bids {
		d := time.UnixMilli(b.DateTime).UTC().Format(time.DateOnly)
		if days[d] == nil {
			days[d] = &dayFigures{}
		}
		days[d].add(b)
	}
	var out []string
	for d, f := range days {
		out = append(out, d+","+f.String())
	}
	return sorted(out)
}

// Q16 returns per channel and UTC day "channel,day,minute," and Q15's
// figures of the channel's bids that day, minute being the latest UTC
// "HH:mm" of those bids.
func Q16(e *Events) []string {
	type key struct{ channel, day string }
	groups := map[key]*dayFigures{}
	for _, b := range e.Bids {
		k := key{b.Channel, time.UnixMilli(b.DateTime).UTC().Format(time.DateOnly)}
		if groups[k] == nil {
			groups[k] = &dayFigures{}
		}
		groups[k].add(b)
	}
	var out []string
	for k, f := range groups {
		out = append(out, k.channel+","+k.day+","+f.minute+","+f.String())
	}
	return sorted(out)
}

// Q18 returns, for each bidder and auction, the line (without "B,") of the
// bidder's bid on the auction with the latest dateTime, the greatest line
// of equal times.
func Q18(e *Events) []string {
	type key struct{ bidder, auction int64 }
	last := map[key]Bid{}
	for _, b := range e.Bids {
		k := key{b.Bidder, b.Auction}
		l, ok := last[k]
		if !ok || b.DateTime > l.DateTime || b.DateTime == l.DateTime && bidLine(b) > bidLine(l) {
			last[k] = b
		}
	}
	var out []string
	for _, b := range last {
		out = append(out, bidLine(b))
	}
	return sorted(out)
}

// Q19Top is how many bids per auction q19 ranks.
const Q19Top = 10

// Q19 returns, for each auction, the lines (without "B,") of its Q19Top
// highest bids, each followed by ",rank" from 1: by price descending, then
// dateTime ascending, then line.
func Q19(e *Events) []string {
	byAuction := map[int64][]Bid{}
	for _, b := range e.Bids {
		byAuction[b.Auction] = append(byAuction[b.Auction], b)
	}
	var out []string
	for _, bids := range byAuction {
		slices.SortFunc(bids, func(a, b Bid) int {
			if a.Price != b.Price {
				return int(b.Price - a.Price)
			}
			if a.DateTime != b.DateTime {
				return int(a.DateTime - b.DateTime)
			}
			return strings.Compare(bidLine(a), bidLine(b))
		})
		for i, b := range bids[:min(len(bids), Q19Top)] {
			out = append(out, fmt.Sprintf("%s,%d", bidLine(b), i+1))
		}
	}
	return sorted(out)
}
