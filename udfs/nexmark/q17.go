package main

import (
	"encoding/binary"
	"time"

	floe "github.com/floe-stream/floe/sdk/go"
)

// q17, auction statistics report (Flink's q17): per auction and day of
// event time (UTC), "auction,day,bids,rank1,rank2,rank3,min,max,avg,sum"
// over its bids: how many, how many below $100, from $100 to below
// $10,000, and from $10,000 (prices are in cents), and the lowest,
// highest, average (rounded down) and total price. The spec keys bids by
// auction into tumbling windows of a day with q17-stats as the aggregate.

func init() {
	floe.Aggregate("q17-stats", statsCodec{}, floe.AggregateFunc[stats]{
		Create: func() stats { return stats{} },
		Add:    addBid,
		Merge:  mergeStats,
		Result: statsResult,
	})
}

// stats is q17's accumulator.
type stats struct{ bids, rank1, rank2, rank3, min, max, sum int64 }

// addBid folds a bid into s.
func addBid(s stats, r floe.Record) stats {
	if !split(r.Value, bidF[:]) {
		return s
	}
	p, ok := atoi(bidF[3])
	if !ok {
		return s
	}
	switch {
	case p < 10_000:
		s.rank1++
	case p < 1_000_000:
		s.rank2++
	default:
		s.rank3++
	}
	if s.bids == 0 || p < s.min {
		s.min = p
	}
	s.max = max(s.max, p)
	s.bids++
	s.sum += p
	return s
}

func mergeStats(a, b stats) stats {
	if b.bids == 0 {
		return a
	}
	if a.bids == 0 {
		return b
	}
	return stats{a.bids + b.bids, a.rank1 + b.rank1, a.rank2 + b.rank2, a.rank3 + b.rank3,
		min(a.min, b.min), max(a.max, b.max), a.sum + b.sum}
}

func statsResult(key []byte, w floe.Window, s stats, emit floe.Emitter) error {
	if s.bids == 0 {
		return nil
	}
	line = append(append(line[:0], key...), ',')
	line = time.UnixMilli(w.Start).UTC().AppendFormat(line, "2006-01-02")
	for _, v := range []int64{s.bids, s.rank1, s.rank2, s.rank3, s.min, s.max, s.sum / s.bids, s.sum} {
		line = floe.AppendInt(append(line, ','), v)
	}
	emit.Emit(line)
	return nil
}

// statsCodec stores stats as seven little-endian integers.
type statsCodec struct{}

func (statsCodec) Append(dst []byte, s stats) []byte {
	for _, v := range []int64{s.bids, s.rank1, s.rank2, s.rank3, s.min, s.max, s.sum} {
		dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
	}
	return dst
}

func (statsCodec) Decode(b []byte) (stats, error) {
	if len(b) != 56 {
		return stats{}, errEvent
	}
	var v [7]int64
	for i := range v {
		v[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return stats{v[0], v[1], v[2], v[3], v[4], v[5], v[6]}, nil
}

func (statsCodec) Type() floe.ValueType { return floe.TypeBytes }
