package main

import (
	"encoding/binary"
	"errors"

	floe "github.com/floe-stream/floe/sdk/go"
)

// q5's and q7's last steps as aggregates: a window keeps the highest value
// so far and the lines that have it, not all its records. As process
// window functions (hot-items, max-bid, kept for the tests and docs that
// use them) the host stored every record of a window and handed them all
// to the guest when it fired (RATIONALE.md, issue 22).

func init() {
	floe.Aggregate("top-counts", bestCodec{}, bestBy(2, 0, 2, topCountsResult))
	floe.Aggregate("max-bids", bestCodec{}, bestBy(3, 1, 3, maxBidsResult))
}

// best is the accumulator of top-counts and max-bids: the highest value
// so far, or malformed, and the lines that have it, each ending in '\n'.
type best struct {
	value int64
	lines []byte
}

// malformed marks an accumulator that took a record it could not parse;
// its result is errEvent.
const malformed = -2

// bestBy returns an aggregate keeping the records with the highest
// non-negative integer in field vf; a record counts as its fields first
// to last, which are contiguous.
func bestBy(vf, first, last int, result func(key []byte, w floe.Window, b best, emit floe.Emitter) error) floe.AggregateFunc[best] {
	return floe.AggregateFunc[best]{
		Create: func() best { return best{value: -1} },
		Add: func(b best, r floe.Record) best {
			v, ok := parseUint(field(r.Value, vf))
			switch {
			case b.value == malformed:
			case !ok:
				b.value, b.lines = malformed, b.lines[:0]
			case v > b.value:
				b.value = v
				b.lines = append(append(b.lines[:0], fields(r.Value, first, last)...), '\n')
			case v == b.value:
				b.lines = append(append(b.lines, fields(r.Value, first, last)...), '\n')
			}
			return b
		},
		Merge: func(a, b best) best {
			switch {
			case a.value == malformed:
			case b.value == malformed || b.value > a.value:
				return b
			case b.value == a.value:
				a.lines = append(a.lines, b.lines...)
			}
			return a
		},
		Result: func(key []byte, w floe.Window, b best, emit floe.Emitter) error {
			if b.value == malformed {
				return errEvent
			}
			return result(key, w, b, emit)
		},
	}
}

// topCountsResult emits the "windowEnd,auction,count" lines with the
// highest count, as hot-items does.
func topCountsResult(_ []byte, _ floe.Window, b best, emit floe.Emitter) error {
	forLines(b.lines, func(l []byte) { emit.Emit(l) })
	return nil
}

// maxBidsResult emits "windowEnd,auction,bidder,price" for the highest
// bids, as max-bid does.
func maxBidsResult(_ []byte, w floe.Window, b best, emit floe.Emitter) error {
	forLines(b.lines, func(l []byte) {
		out = append(append(floe.AppendInt(out[:0], w.End), ','), l...)
		emit.Emit(out)
	})
	return nil
}

func forLines(b []byte, fn func([]byte)) {
	for len(b) > 0 {
		i := floe.IndexByte(b, '\n')
		fn(b[:i])
		b = b[i+1:]
	}
}

// fields returns fields first to last of line and the commas between them.
func fields(line []byte, first, last int) []byte {
	f, l := field(line, first), field(line, last)
	if f == nil || l == nil {
		return nil
	}
	// NB: field returns subslices of line, so their capacities place them.
	return line[cap(line)-cap(f) : cap(line)-cap(l)+len(l)]
}

// parseUint parses a non-negative decimal integer.
func parseUint(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// bestCodec encodes a best as its value (i64, little endian) and lines.
type bestCodec struct{}

func (bestCodec) Append(dst []byte, b best) []byte {
	return append(binary.LittleEndian.AppendUint64(dst, uint64(b.value)), b.lines...)
}

func (bestCodec) Decode(p []byte) (best, error) {
	if len(p) < 8 {
		return best{}, errors.New("nexmark: corrupt best accumulator")
	}
	return best{value: int64(binary.LittleEndian.Uint64(p)), lines: append([]byte(nil), p[8:]...)}, nil
}

func (bestCodec) Type() floe.ValueType { return floe.TypeBytes }
