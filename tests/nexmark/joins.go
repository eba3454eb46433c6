package nexmark

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The parameters of the queries over several kinds of event.
const (
	// Q3Category is the category of q3's and q20's auctions.
	Q3Category = 10
	// Q11Gap is the gap that ends a q11 session, in ms.
	Q11Gap = 10_000
)

// q3States are the states of q3's persons.
var q3States = []string{"OR", "ID", "CA"}

// Q0 returns every bid line, as a pass-through job of bids writes it.
func Q0(e *Events) []string {
	var out []string
	for _, b := range e.Bids {
		out = append(out, fmt.Sprintf("B,%d,%d,%d,%s,%s,%d", b.Auction, b.Bidder, b.Price, b.Channel, b.URL, b.DateTime))
	}
	return sorted(out)
}

// Q3 returns "name,city,state,auctionId" for each auction of category
// Q3Category whose seller is a person of Oregon, Idaho or California.
func Q3(e *Events) []string {
	var out []string
	for _, a := range e.Auctions {
		if a.Category != Q3Category {
			continue
		}
		for _, p := range e.Persons {
			if p.ID == a.Seller && slices.Contains(q3States, p.State) {
				out = append(out, fmt.Sprintf("%s,%s,%s,%d", p.Name, p.City, p.State, a.ID))
			}
		}
	}
	return sorted(out)
}

// Win is an auction and its winning bid.
type Win struct {
	Auction Auction
	Bid     Bid
}

// Winners returns the auctions that have a winning bid, with it: of the
// bids on the auction at or after its dateTime and at or before its
// expires, the highest, the earliest of equal prices, the lowest bidder of
// equal prices and times.
func Winners(e *Events) []Win {
	byAuction := map[int64][]Bid{}
	for _, b := range e.Bids {
		byAuction[b.Auction] = append(byAuction[b.Auction], b)
	}
	var wins []Win
	for _, a := range e.Auctions {
		var best *Bid
		for i, b := range byAuction[a.ID] {
			if b.DateTime < a.DateTime || b.DateTime > a.Expires {
				continue
			}
			if best == nil || b.Price > best.Price ||
				b.Price == best.Price && (b.DateTime < best.DateTime || b.DateTime == best.DateTime && b.Bidder < best.Bidder) {
				best = &byAuction[a.ID][i]
			}
		}
		if best != nil {
			wins = append(wins, Win{a, *best})
		}
	}
	return wins
}

// Q9 returns each auction's line without its "A," followed by
// ",bidder,price,dateTime" of its winning bid (Winners).
func Q9(e *Events) []string {
	var out []string
	for _, w := range Winners(e) {
		a, b := w.Auction, w.Bid
		out = append(out, fmt.Sprintf("%d,%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d",
			a.ID, a.ItemName, a.Description, a.InitialBid, a.Reserve, a.DateTime, a.Expires, a.Seller, a.Category,
			b.Bidder, b.Price, b.DateTime))
	}
	return sorted(out)
}

// Q4 returns "windowEnd,category,average" for each category and each
// tumbling window of WindowSize in which one of the category's auctions
// with a winner expired: the average, rounded down, of the winning prices
// of all the category's auctions that expired before windowEnd.
func Q4(e *Events) []string { return Q4Every(e, WindowSize) }

// Q4Every is Q4 with windows of size ms.
func Q4Every(e *Events, size int64) []string {
	byCategory := map[int64][]Win{}
	for _, w := range Winners(e) {
		byCategory[w.Auction.Category] = append(byCategory[w.Auction.Category], w)
	}
	var out []string
	for category, wins := range byCategory {
		ends := map[int64]bool{}
		for _, w := range wins {
			ends[tumblingStart(w.Auction.Expires, size)+size] = true
		}
		for end := range ends {
			var sum, n int64
			for _, w := range wins {
				if w.Auction.Expires < end {
					sum += w.Bid.Price
					n++
				}
			}
			out = append(out, fmt.Sprintf("%d,%d,%d", end, category, sum/n))
		}
	}
	return sorted(out)
}

// Q4Average returns "category,average" for each category with an auction
// that has a winner (Winners): the mean of the winning prices of all the
// category's auctions, Nexmark's q4 as its SQL writes it (AVG of the
// MAX(price) of each auction's bids between its dateTime and its expires,
// GROUP BY category), the final state of that updating result. The average
// is a DOUBLE in SQL's text: the shortest decimal that reads back as the
// quotient, with ".0" when it is whole.
func Q4Average(e *Events) []string {
	totals := map[int64]sums{}
	for _, w := range Winners(e) {
		s := totals[w.Auction.Category]
		totals[w.Auction.Category] = sums{s.total + w.Bid.Price, s.n + 1}
	}
	var out []string
	for category, s := range totals {
		out = append(out, fmt.Sprintf("%d,%s", category, averageText(s)))
	}
	return sorted(out)
}

// averageText is the mean of s as SQL writes a DOUBLE.
func averageText(s sums) string {
	t := strconv.FormatFloat(float64(s.total)/float64(s.n), 'g', -1, 64)
	if !strings.ContainsAny(t, ".eE") {
		t += ".0"
	}
	return t
}

// Q6Last is how many of a seller's last closed auctions q6 averages.
const Q6Last = 10

// Q6 returns "expires,seller,auctionId,average" for each auction with a
// winner (Winners): the average, rounded down, of the winning prices of
// its seller's last Q6Last auctions with a winner, in order of expiry and
// then id, up to and including this one.
func Q6(e *Events) []string {
	bySeller := map[int64][]Win{}
	for _, w := range Winners(e) {
		bySeller[w.Auction.Seller] = append(bySeller[w.Auction.Seller], w)
	}
	var out []string
	for seller, wins := range bySeller {
		slices.SortFunc(wins, func(a, b Win) int {
			if a.Auction.Expires != b.Auction.Expires {
				return cmp.Compare(a.Auction.Expires, b.Auction.Expires)
			}
			return cmp.Compare(a.Auction.ID, b.Auction.ID)
		})
		for i, w := range wins {
			var sum, n int64
			for j := max(0, i-Q6Last+1); j <= i; j++ {
				sum += wins[j].Bid.Price
				n++
			}
			out = append(out, fmt.Sprintf("%d,%d,%d,%d", w.Auction.Expires, seller, w.Auction.ID, sum/n))
		}
	}
	return sorted(out)
}

// Q13Keys is the modulus that maps a bid's auction id to a q13 side input
// key.
const Q13Keys = 10_000

// Q13 returns "auction,bidder,price,dateTime,value" for each bid whose
// auction id modulo Q13Keys is a key of side, with that key's value.
func Q13(e *Events, side map[int64]string) []string {
	var out []string
	for _, b := range e.Bids {
		if v, ok := side[b.Auction%Q13Keys]; ok {
			out = append(out, fmt.Sprintf("%d,%d,%d,%d,%s", b.Auction, b.Bidder, b.Price, b.DateTime, v))
		}
	}
	return sorted(out)
}

// Q17 returns, for each auction and UTC day with bids on it,
// "auction,day,bids,rank1,rank2,rank3,min,max,avg,sum": the number of
// bids, of those priced below 10,000 cents, from 10,000 to below 1,000,000
// and from 1,000,000, and the lowest, highest, average (rounded down) and
// total price.
func Q17(e *Events) []string {
	type key struct {
		auction int64
		day     string
	}
	type agg struct{ n, r1, r2, r3, lo, hi, sum int64 }
	days := map[key]*agg{}
	for _, b := range e.Bids {
		k := key{b.Auction, time.UnixMilli(b.DateTime).UTC().Format(time.DateOnly)}
		a := days[k]
		if a == nil {
			a = &agg{lo: b.Price, hi: b.Price}
			days[k] = a
		}
		a.n++
		a.sum += b.Price
		a.lo, a.hi = min(a.lo, b.Price), max(a.hi, b.Price)
		switch {
		case b.Price < 10_000:
			a.r1++
		case b.Price < 1_000_000:
			a.r2++
		default:
			a.r3++
		}
	}
	var out []string
	for k, a := range days {
		out = append(out, fmt.Sprintf("%d,%s,%d,%d,%d,%d,%d,%d,%d,%d", k.auction, k.day, a.n, a.r1, a.r2, a.r3, a.lo, a.hi, a.sum/a.n, a.sum))
	}
	return sorted(out)
}

// q21ChannelID is Flink's q21 pattern: the second group is the id.
var q21ChannelID = regexp.MustCompile(`(&|^)channel_id=([^&]*)`)

// Q21 returns "auction,bidder,price,channel,channelId" for each bid whose
// channel is Apple, Google, Facebook or Baidu in any case (ids 0 to 3), or
// whose url has a channel_id parameter (its value).
func Q21(e *Events) []string {
	var out []string
	for _, b := range e.Bids {
		id := ""
		switch strings.ToLower(b.Channel) {
		case "apple":
			id = "0"
		case "google":
			id = "1"
		case "facebook":
			id = "2"
		case "baidu":
			id = "3"
		default:
			m := q21ChannelID.FindStringSubmatch(b.URL)
			if m == nil {
				continue
			}
			id = m[2]
		}
		out = append(out, fmt.Sprintf("%d,%d,%d,%s,%s", b.Auction, b.Bidder, b.Price, b.Channel, id))
	}
	return sorted(out)
}

// Q22 returns "auction,bidder,price,channel,dir1,dir2,dir3" for each bid:
// the 0-based parts 3, 4 and 5 of its url split at "/", empty when absent.
func Q22(e *Events) []string {
	var out []string
	for _, b := range e.Bids {
		parts := strings.Split(b.URL, "/")
		dir := func(i int) string {
			if i < len(parts) {
				return parts[i]
			}
			return ""
		}
		out = append(out, fmt.Sprintf("%d,%d,%d,%s,%s,%s,%s", b.Auction, b.Bidder, b.Price, b.Channel, dir(3), dir(4), dir(5)))
	}
	return sorted(out)
}

// Q11 returns "bidder,bids,start,end" for each session of each bidder: a
// maximal run of the bidder's bids in time order in which each comes at
// most Q11Gap after the one before; it starts at its first bid and ends
// Q11Gap after its last. (Each bid opens a window [t, t+Q11Gap), and
// windows that overlap or touch merge, as in Flink.)
func Q11(e *Events) []string {
	byBidder := map[int64][]int64{}
	for _, b := range e.Bids {
		byBidder[b.Bidder] = append(byBidder[b.Bidder], b.DateTime)
	}
	var out []string
	for bidder, times := range byBidder {
		slices.Sort(times)
		start, n := times[0], 1
		for i := 1; i <= len(times); i++ {
			if i < len(times) && times[i]-times[i-1] <= Q11Gap {
				n++
				continue
			}
			out = append(out, fmt.Sprintf("%d,%d,%d,%d", bidder, n, start, times[i-1]+Q11Gap))
			if i < len(times) {
				start, n = times[i], 1
			}
		}
	}
	return sorted(out)
}

// Q20 returns each bid on an auction of category Q3Category followed by the
// auction's fields: "auction,bidder,price,channel,url,dateTime,itemName,
// description,initialBid,reserve,dateTime,expires,seller,category".
func Q20(e *Events) []string {
	auctions := map[int64]Auction{}
	for _, a := range e.Auctions {
		auctions[a.ID] = a
	}
	var out []string
	for _, b := range e.Bids {
		a, ok := auctions[b.Auction]
		if !ok || a.Category != Q3Category {
			continue
		}
		out = append(out, fmt.Sprintf("%d,%d,%d,%s,%s,%d,%s,%s,%d,%d,%d,%d,%d,%d",
			b.Auction, b.Bidder, b.Price, b.Channel, b.URL, b.DateTime,
			a.ItemName, a.Description, a.InitialBid, a.Reserve, a.DateTime, a.Expires, a.Seller, a.Category))
	}
	return sorted(out)
}
