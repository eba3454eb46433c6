package nexmark

import (
	"math"
	"strconv"
)

// The proportions of the event kinds: of every totalProportion consecutive
// event numbers, the first personProportion are persons, the next
// auctionProportion auctions and the rest bids.
const (
	personProportion  = 1
	auctionProportion = 3
	bidProportion     = 46
	totalProportion   = personProportion + auctionProportion + bidProportion
)

// The first ids, so that queries find matches even in short streams.
const (
	firstPersonID   = 1000
	firstAuctionID  = 1000
	firstCategoryID = 10
	numCategories   = 5
)

// The skew of the stream, as in NexmarkConfiguration's defaults: a bid is
// for the current hot auction with probability 1-1/hotAuctionRatio, by the
// current hot bidder with probability 1-1/hotBiddersRatio, and an auction is
// by the current hot seller with probability 1-1/hotSellersRatio. The hot
// auction (person) is the first of the current batch of hotBatch auctions
// (persons); the hot bidder is the second person of the batch.
const (
	hotAuctionRatio = 2
	hotBiddersRatio = 4
	hotSellersRatio = 4
	hotBatch        = 100
)

// The spread of the ids that are not hot: a random auction is one of the
// last numInFlightAuctions ones or up to auctionIDLead ahead, a random
// person one of the last numActivePeople or up to personIDLead ahead.
const (
	numInFlightAuctions = 100
	numActivePeople     = 1000
	auctionIDLead       = 10
	personIDLead        = 10
)

// The bids' channels, as in the Flink Nexmark generator: with probability
// 1-1/hotChannelsRatio one of hotChannels, otherwise channel-K for K drawn
// from numChannels.
const (
	hotChannelsRatio = 2
	numChannels      = 10_000
)

var (
	hotChannels = [...]string{"Google", "Facebook", "Baidu", "Apple"}
	usStates    = [...]string{"AZ", "CA", "ID", "OR", "WA", "WY"}
	usCities    = [...]string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	firstNames  = [...]string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	lastNames   = [...]string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}
)

// Generator computes the events of a Nexmark stream. Event n, for n >= 0, is
// a pure function of n and of the Generator's rate and seed, so any subset
// of the stream can be computed in any order. A Generator is a small value,
// safe for concurrent use.
type Generator struct {
	eventsPerSecond int64
	salt            int64 // XORed into the event number to seed its draws
}

// NewGenerator returns the generator of the stream with eventsPerSecond
// events per second of event time (DefaultEventsPerSecond if 0) and seed.
// eventsPerSecond must be at most MaxEventsPerSecond.
func NewGenerator(eventsPerSecond, seed int64) Generator {
	if eventsPerSecond == 0 {
		eventsPerSecond = DefaultEventsPerSecond
	}
	g := Generator{eventsPerSecond: eventsPerSecond}
	if seed != 0 {
		g.salt = int64(mix(uint64(seed)))
	}
	return g
}

// Timestamp returns the event time of event n in milliseconds since the
// epoch: BaseTime plus n/eventsPerSecond seconds, rounded down to the
// millisecond. It never decreases as n grows.
func (g Generator) Timestamp(n int64) int64 {
	eps := g.eventsPerSecond
	return BaseTime + n/eps*1000 + n%eps*1000/eps
}

// Kind returns the kind of event n: 'P' (person), 'A' (auction) or 'B'
// (bid).
func Kind(n int64) byte {
	switch off := n % totalProportion; {
	case off < personProportion:
		return 'P'
	case off < personProportion+auctionProportion:
		return 'A'
	}
	return 'B'
}

// Append appends the CSV line of event n (n >= 0), without a newline, to dst
// and returns the extended slice and the event's timestamp (see Timestamp).
func (g Generator) Append(dst []byte, n int64) ([]byte, int64) {
	ts := g.Timestamp(n)
	r := newJavaRandom(n ^ g.salt)
	switch Kind(n) {
	case 'P':
		return appendPerson(dst, n, &r, ts), ts
	case 'A':
		return g.appendAuction(dst, n, &r, ts), ts
	}
	return appendBid(dst, n, &r, ts), ts
}

// appendPerson appends "P,id,name,emailAddress,creditCard,city,state,dateTime".
func appendPerson(dst []byte, n int64, r *javaRandom, ts int64) []byte {
	dst = append(dst, "P,"...)
	dst = strconv.AppendInt(dst, lastPerson(n)+firstPersonID, 10)
	dst = append(dst, ',')
	dst = append(dst, firstNames[r.nextInt(int32(len(firstNames)))]...)
	dst = append(dst, ' ')
	dst = append(dst, lastNames[r.nextInt(int32(len(lastNames)))]...)
	dst = append(dst, ',')
	dst = appendString(dst, r, 7, ' ')
	dst = append(dst, '@')
	dst = appendString(dst, r, 5, ' ')
	dst = append(dst, ".com,"...)
	for i := range 4 {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = appendPadded(dst, int64(r.nextInt(10000)), 4)
	}
	dst = append(dst, ',')
	dst = append(dst, usCities[r.nextInt(int32(len(usCities)))]...)
	dst = append(dst, ',')
	dst = append(dst, usStates[r.nextInt(int32(len(usStates)))]...)
	dst = append(dst, ',')
	return strconv.AppendInt(dst, ts, 10)
}

// appendAuction appends "A,id,itemName,description,initialBid,reserve,
// dateTime,expires,seller,category". The draws come in Beam's order, which
// is not the order of the fields.
func (g Generator) appendAuction(dst []byte, n int64, r *javaRandom, ts int64) []byte {
	seller := lastPerson(n) / hotBatch * hotBatch
	if r.nextInt(hotSellersRatio) == 0 {
		seller = nextPerson(n, r)
	}
	category := firstCategoryID + int64(r.nextInt(numCategories))
	initialBid := nextPrice(r)
	expires := ts + g.auctionLength(n, r, ts)
	dst = append(dst, "A,"...)
	dst = strconv.AppendInt(dst, lastAuction(n)+firstAuctionID, 10)
	dst = append(dst, ',')
	dst = appendString(dst, r, 20, ' ')
	dst = append(dst, ',')
	dst = appendString(dst, r, 100, ' ')
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, initialBid, 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, initialBid+nextPrice(r), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, ts, 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, expires, 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, seller+firstPersonID, 10)
	dst = append(dst, ',')
	return strconv.AppendInt(dst, category, 10)
}

// auctionLength returns how long, in milliseconds, the auction of event n
// runs: uniform from 1 to twice the event time it takes the stream to create
// numInFlightAuctions more auctions, so that about that many are open at
// any time.
func (g Generator) auctionLength(n int64, r *javaRandom, ts int64) int64 {
	const eventsForAuctions = numInFlightAuctions * totalProportion / auctionProportion
	horizon := g.Timestamp(n+eventsForAuctions) - ts
	return 1 + r.boundedLong(max(2*horizon, 1))
}

// appendBid appends "B,auction,bidder,price,channel,url,dateTime".
func appendBid(dst []byte, n int64, r *javaRandom, ts int64) []byte {
	auction := lastAuction(n) / hotBatch * hotBatch
	if r.nextInt(hotAuctionRatio) == 0 {
		auction = nextAuction(n, r)
	}
	bidder := lastPerson(n)/hotBatch*hotBatch + 1
	if r.nextInt(hotBiddersRatio) == 0 {
		bidder = nextPerson(n, r)
	}
	dst = append(dst, "B,"...)
	dst = strconv.AppendInt(dst, auction+firstAuctionID, 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, bidder+firstPersonID, 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, nextPrice(r), 10)
	dst = append(dst, ',')
	if r.nextInt(hotChannelsRatio) > 0 {
		i := r.nextInt(int32(len(hotChannels)))
		dst = append(dst, hotChannels[i]...)
		dst = append(dst, ',')
		dst = appendHotURL(dst, i)
	} else {
		k := r.nextInt(numChannels)
		dst = append(dst, "channel-"...)
		dst = strconv.AppendInt(dst, int64(k), 10)
		dst = append(dst, ',')
		dst = appendChannelURL(dst, k)
	}
	dst = append(dst, ',')
	return strconv.AppendInt(dst, ts, 10)
}

// appendHotURL appends the URL of hot channel i. NB: Flink draws the hot
// URLs at random when it starts; here they are fixed, drawn from seeds -1 to
// -4, so that the stream does not depend on the process.
func appendHotURL(dst []byte, i int32) []byte {
	r := newJavaRandom(-1 - int64(i))
	return appendBaseURL(dst, &r)
}

// appendChannelURL appends the URL of channel k: a base URL with, nine times
// in ten, the channel's id appended, as in Flink, but drawn from seed k
// rather than at random, so that the same channel always has the same URL.
func appendChannelURL(dst []byte, k int32) []byte {
	r := newJavaRandom(int64(k))
	dst = appendBaseURL(dst, &r)
	if r.nextInt(10) > 0 {
		dst = append(dst, "&channel_id="...)
		dst = strconv.AppendInt(dst, int64(reverse32(k)), 10)
	}
	return dst
}

// appendBaseURL appends a URL with three random path segments.
func appendBaseURL(dst []byte, r *javaRandom) []byte {
	dst = append(dst, "https://www.nexmark.com/"...)
	for range 3 {
		dst = appendString(dst, r, 5, '_')
		dst = append(dst, '/')
	}
	return append(dst, "item.htm?query=1"...)
}

// lastPerson returns the base-0 id of the last person created at or before
// event n.
func lastPerson(n int64) int64 {
	epoch, off := n/totalProportion, n%totalProportion
	return epoch*personProportion + min(off, personProportion-1)
}

// lastAuction returns the base-0 id of the last auction created at or before
// event n; -1 before the first.
func lastAuction(n int64) int64 {
	epoch, off := n/totalProportion, n%totalProportion
	switch {
	case off < personProportion:
		epoch, off = epoch-1, auctionProportion-1
	case off >= personProportion+auctionProportion:
		off = auctionProportion - 1
	default:
		off -= personProportion
	}
	return epoch*auctionProportion + off
}

// nextPerson returns a random base-0 person id for event n: one of the last
// numActivePeople persons, or one up to personIDLead not created yet.
func nextPerson(n int64, r *javaRandom) int64 {
	people := lastPerson(n) + 1
	active := min(people, numActivePeople)
	return people - active + r.boundedLong(active+personIDLead)
}

// nextAuction returns a random base-0 auction id for event n: one of the
// last numInFlightAuctions auctions, or one up to auctionIDLead not created
// yet.
func nextAuction(n int64, r *javaRandom) int64 {
	last := lastAuction(n)
	first := max(last-numInFlightAuctions, 0)
	return first + r.boundedLong(last-first+1+auctionIDLead)
}

// nextPrice returns a price in cents, log-uniform from $1 to $1M.
func nextPrice(r *javaRandom) int64 {
	// NB: math.Floor(x+0.5) is Java's Math.round for these positive values.
	return int64(math.Floor(math.Pow(10, r.nextDouble()*6)*100 + 0.5))
}

// appendString appends a random string of 3 to maxLen-1 characters, each a
// lowercase letter or, one time in 13, space. A space string is trimmed, as
// Java's String.trim does; any other space character is kept.
func appendString(dst []byte, r *javaRandom, maxLen int32, space byte) []byte {
	start := len(dst)
	for n := 3 + r.nextInt(maxLen-3); n > 0; n-- {
		if r.nextInt(13) == 0 {
			dst = append(dst, space)
		} else {
			dst = append(dst, byte('a'+r.nextInt(26)))
		}
	}
	if space != ' ' {
		return dst
	}
	end := len(dst)
	for end > start && dst[end-1] == ' ' {
		end--
	}
	lead := start
	for lead < end && dst[lead] == ' ' {
		lead++
	}
	return append(dst[:start], dst[lead:end]...)
}

// appendPadded appends v in decimal, zero-padded to width digits.
func appendPadded(dst []byte, v int64, width int) []byte {
	for lim := int64(10); width > 1; width-- {
		if v < lim {
			dst = append(dst, '0')
		}
		lim *= 10
	}
	return strconv.AppendInt(dst, v, 10)
}

// golden is the increment of the SplitMix64 sequence.
const golden = 0x9e3779b97f4a7c15

// mix is the SplitMix64 finalizer, which spreads a seed over 64 bits.
func mix(x uint64) uint64 {
	x += golden
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
