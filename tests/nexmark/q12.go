package nexmark

import (
	"fmt"
	"strconv"
	"strings"
)

// Q12Totals is the brute force of q12 (bids per bidder per
// processing-time window) that processing time allows: which window a bid
// lands in depends on when it arrives, so only each bidder's number of
// bids over all windows is a function of the events.
func Q12Totals(e *Events) map[int64]int64 {
	out := map[int64]int64{}
	for _, b := range e.Bids {
		out[b.Bidder]++
	}
	return out
}

// CheckQ12 checks q12's output lines, "bidder,bids,start,end", against the
// totals: every window is size ms long and aligned to it, a bidder has at
// most one line per window, no line counts zero bids, and each bidder's
// counts sum to its total. It returns the number of distinct windows.
func CheckQ12(lines []string, totals map[int64]int64, size int64) (windows int, err error) {
	sums := map[int64]int64{}
	seen := map[[2]int64]bool{}
	starts := map[int64]bool{}
	for _, line := range lines {
		f := strings.Split(line, ",")
		if len(f) != 4 {
			return 0, fmt.Errorf("line %q: want bidder,bids,start,end", line)
		}
		var v [4]int64
		for i, s := range f {
			if v[i], err = strconv.ParseInt(s, 10, 64); err != nil {
				return 0, fmt.Errorf("line %q: %v", line, err)
			}
		}
		bidder, n, start, end := v[0], v[1], v[2], v[3]
		switch {
		case end-start != size || start%size != 0:
			return 0, fmt.Errorf("line %q: the window [%d, %d) is not %d ms aligned to %d", line, start, end, size, size)
		case n <= 0:
			return 0, fmt.Errorf("line %q: a window without bids", line)
		case seen[[2]int64{bidder, start}]:
			return 0, fmt.Errorf("line %q: bidder %d has two lines for window %d", line, bidder, start)
		}
		seen[[2]int64{bidder, start}] = true
		starts[start] = true
		sums[bidder] += n
	}
	for b, want := range totals {
		if sums[b] != want {
			return 0, fmt.Errorf("bidder %d: the windows count %d bids, the events hold %d", b, sums[b], want)
		}
	}
	for b, got := range sums {
		if totals[b] == 0 {
			return 0, fmt.Errorf("bidder %d: %d bids counted, the events hold none", b, got)
		}
	}
	return len(starts), nil
}
