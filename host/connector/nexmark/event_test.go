package nexmark

import (
	"strconv"
	"strings"
	"testing"
)

// TestBeamEvents pins events of the default stream. Their fields other than
// url are those a direct Java port of Beam's generator (with Flink's channel
// draw, the default configuration and BaseTime) printed for the same event
// numbers; 13,000 events compared equal when this package was written.
func TestBeamEvents(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "P,1000,Peter Jones,nhd@xcat.com,7241 7320 9143 4888,Portland,WY,1704067200000"},
		{1, "A,1000,wkx mgee,eszpqxtdxrvwmmywkmogoahf,28873,29448,1704067200000,1704067200011,1000,13"},
		{2, "A,1001,z ck w,cwlachrnkfzkygsu edjytotggvasbt z yjjszhhsqtrgzblkaolzkhlldqedvgj fdbvswemnzshmwipqrzqfkd,25626290,28805847,1704067200000,1704067200202,1000,12"},
		{4, "B,1000,1001,32530001,Google,https://www.nexmark.com/jol/liu/fmf/item.htm?query=1,1704067200000"},
		{7, "B,1000,1001,3126206,channel-6254,https://www.nexmark.com/vlg/suo/kiyd/item.htm?query=1&channel_id=1981284352,1704067200000"},
		{50, "P,1001,Sarah Smith,f  y@yumv.com,0892 2755 1923 0591,Los Angeles,ID,1704067200005"},
		{123456789, "B,7408400,2470101,55171,channel-7554,https://www.nexmark.com/yxy/ckbg/vkw/item.htm?query=1&channel_id=1102577664,1704079545678"},
	}
	g := NewGenerator(0, 0)
	for _, tt := range tests {
		got, ts := g.Append(nil, tt.n)
		if string(got) != tt.want {
			t.Errorf("event %d:\n got %s\nwant %s", tt.n, got, tt.want)
		}
		dateTime := map[byte]int{'P': 7, 'A': 6, 'B': 6}[tt.want[0]]
		if strconv.FormatInt(ts, 10) != strings.Split(tt.want, ",")[dateTime] {
			t.Errorf("event %d: timestamp %d, want its dateTime", tt.n, ts)
		}
	}
}

func TestTimestamp(t *testing.T) {
	tests := []struct {
		eps, n, want int64
	}{
		{0, 0, 0}, {0, 9, 0}, {0, 10, 1}, {0, 10_000, 1000}, {0, 123_456_789, 12_345_678},
		{3, 1, 333}, {3, 2, 666}, {3, 3, 1000}, {3, 4, 1333},
		{1, 5, 5000}, {2_000_000, 1_999_999, 999},
		{MaxEventsPerSecond, 1<<62 + 1, (1<<62 + 1) / 1_000_000},
	}
	for _, tt := range tests {
		if got := NewGenerator(tt.eps, 0).Timestamp(tt.n) - BaseTime; got != tt.want {
			t.Errorf("eventsPerSecond %d: event %d at BaseTime%+d ms, want %+d", tt.eps, tt.n, got, tt.want)
		}
	}
}

func TestIDsOfTheFirstEpochs(t *testing.T) {
	tests := []struct {
		n                    int64
		kind                 byte
		lastPerson, lastAuct int64
	}{
		{0, 'P', 0, -1}, {1, 'A', 0, 0}, {2, 'A', 0, 1}, {3, 'A', 0, 2}, {4, 'B', 0, 2}, {49, 'B', 0, 2},
		{50, 'P', 1, 2}, {51, 'A', 1, 3}, {53, 'A', 1, 5}, {99, 'B', 1, 5}, {100, 'P', 2, 5},
	}
	for _, tt := range tests {
		if k, p, a := Kind(tt.n), lastPerson(tt.n), lastAuction(tt.n); k != tt.kind || p != tt.lastPerson || a != tt.lastAuct {
			t.Errorf("event %d: kind %c, last person %d, last auction %d; want %c, %d, %d", tt.n, k, p, a, tt.kind, tt.lastPerson, tt.lastAuct)
		}
	}
}

// TestStreamShape checks, over the first 200,000 events of two seeds, the
// proportions, the id sequences and the ranges and skew of the fields.
func TestStreamShape(t *testing.T) {
	const events = 200_000
	for _, seed := range []int64{0, 42} {
		s := shapeOf(t, NewGenerator(0, seed), events)
		if s.kinds['P'] != events/50 || s.kinds['A'] != events/50*3 || s.kinds['B'] != events/50*46 {
			t.Errorf("seed %d: kinds %v, want 1:3:46 of %d", seed, s.kinds, events)
		}
		// A bid is for the hot auction with probability 1/2, plus the
		// chance that a random one is it; by the hot bidder with
		// probability 3/4. The bounds are loose: the stream is fixed.
		bids := float64(s.kinds['B'])
		if f := float64(s.hotAuction) / bids; f < 0.48 || f > 0.53 {
			t.Errorf("seed %d: %.3f of bids for the hot auction, want about 0.5", seed, f)
		}
		if f := float64(s.hotBidder) / bids; f < 0.73 || f > 0.77 {
			t.Errorf("seed %d: %.3f of bids by the hot bidder, want about 0.75", seed, f)
		}
		if f := float64(s.hotSeller) / float64(s.kinds['A']); f < 0.73 || f > 0.78 {
			t.Errorf("seed %d: %.3f of auctions by the hot seller, want about 0.75", seed, f)
		}
		if f := float64(s.hotChannel) / bids; f < 0.48 || f > 0.52 {
			t.Errorf("seed %d: %.3f of bids on hot channels, want about 0.5", seed, f)
		}
		// Log-uniform prices over 6 decades: a sixth per decade.
		for d, c := range s.priceDecades {
			if f := float64(c) / bids; f < 0.15 || f > 0.18 {
				t.Errorf("seed %d: %.3f of prices in decade %d, want about 1/6", seed, f, d)
			}
		}
		for c, k := range s.categories {
			if f := float64(k) / float64(s.kinds['A']); f < 0.18 || f > 0.22 {
				t.Errorf("seed %d: %.3f of auctions in category %d, want about 0.2", seed, f, c+firstCategoryID)
			}
		}
		// About 100 auctions open at a time: the mean length is about
		// the time of 1666 events, 166.6 ms at 10,000 events/s.
		if mean := float64(s.lengthSum) / float64(s.kinds['A']); mean < 155 || mean > 178 {
			t.Errorf("seed %d: mean auction length %.1f ms, want about 166.6", seed, mean)
		}
	}
}

// shape sums up a stream for TestStreamShape.
type shape struct {
	kinds                                        map[byte]int
	hotAuction, hotBidder, hotSeller, hotChannel int
	priceDecades                                 [6]int
	categories                                   [numCategories]int
	lengthSum                                    int64
}

// shapeOf reads the first events of g, checks each event's fields against
// the invariants of its kind, and sums up the stream.
func shapeOf(t *testing.T, g Generator, events int64) shape {
	t.Helper()
	s := shape{kinds: map[byte]int{}}
	urls := map[string]string{}
	var buf []byte
	for n := range events {
		var ts int64
		buf, ts = g.Append(buf[:0], n)
		line := string(buf)
		f := strings.Split(line, ",")
		kind := Kind(n)
		s.kinds[kind]++
		num := func(i int) int64 {
			v, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				t.Fatalf("event %d %q: field %d is not an integer", n, line, i)
			}
			return v
		}
		check := func(ok bool, what string) {
			if !ok {
				t.Fatalf("event %d %q: %s", n, line, what)
			}
		}
		people, auctions := lastPerson(n)+firstPersonID, lastAuction(n)+firstAuctionID
		switch kind {
		case 'P':
			check(len(f) == 8 && f[0] == "P", "want 8 fields starting P")
			check(num(1) == people && num(7) == ts, "want the next person id and dateTime the timestamp")
		case 'A':
			check(len(f) == 10 && f[0] == "A", "want 10 fields starting A")
			check(num(1) == auctions && num(6) == ts, "want the next auction id and dateTime the timestamp")
			check(num(4) >= 100 && num(4) <= 100_000_000 && num(5) >= num(4)+100, "want initialBid in $1..$1M and reserve at least $1 more")
			check(num(7) > ts && num(7) <= g.Timestamp(n+2*1666)+1, "want expiry within twice the horizon")
			check(num(8) >= firstPersonID && num(8) <= people+personIDLead, "want a seller among the people so far or the lead")
			check(num(9) >= firstCategoryID && num(9) < firstCategoryID+numCategories, "want category 10 to 14")
			s.hotSeller += btoi(num(8) == (people-firstPersonID)/hotBatch*hotBatch+firstPersonID)
			s.categories[num(9)-firstCategoryID]++
			s.lengthSum += num(7) - ts
		case 'B':
			check(len(f) == 7 && f[0] == "B" && num(6) == ts, "want 7 fields starting B, dateTime the timestamp")
			check(num(1) >= firstAuctionID && num(1) <= auctions+auctionIDLead, "want an auction so far or in the lead")
			check(num(2) >= firstPersonID && num(2) <= people+personIDLead, "want a bidder among the people so far or the lead")
			check(num(3) >= 100 && num(3) <= 100_000_000, "want a price in $1..$1M")
			check(urls[f[4]] == "" || urls[f[4]] == f[5], "want the same url for the same channel")
			check(strings.HasPrefix(f[5], "https://www.nexmark.com/"), "want a nexmark url")
			urls[f[4]] = f[5]
			s.hotAuction += btoi(num(1) == (auctions-firstAuctionID)/hotBatch*hotBatch+firstAuctionID)
			s.hotBidder += btoi(num(2) == (people-firstPersonID)/hotBatch*hotBatch+1+firstPersonID)
			s.hotChannel += btoi(!strings.HasPrefix(f[4], "channel-"))
			d := 0
			for p := num(3) / 100; p >= 10 && d < 5; p /= 10 {
				d++
			}
			s.priceDecades[d]++
		}
	}
	return s
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
