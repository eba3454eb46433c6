package nexmark

import (
	"fmt"
	"time"
)

// Q10 returns every bid as "auction,bidder,price,dateTime", by the bucket
// its event time names, "dt=yyyy-mm-dd/hm=HH:MM" in UTC, each bucket's
// lines sorted.
func Q10(e *Events) map[string][]string {
	out := map[string][]string{}
	for _, b := range e.Bids {
		t := time.UnixMilli(b.DateTime).UTC()
		bucket := fmt.Sprintf("dt=%04d-%02d-%02d/hm=%02d:%02d", t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute())
		out[bucket] = append(out[bucket], fmt.Sprintf("%d,%d,%d,%d", b.Auction, b.Bidder, b.Price, b.DateTime))
	}
	for _, lines := range out {
		sorted(lines)
	}
	return out
}
