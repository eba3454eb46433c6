package nexmark

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// errNotBid is returned by the Native queries for a bid line they cannot
// read.
var errNotBid = errors.New("nexmark: malformed bid")

// bid is the part of a bid line the native queries read: the numeric
// fields, and where the price lies in the line.
type bid struct {
	auction, bidder, price int64
	priceFrom, priceTo     int
}

// parseBid reads "B,auction,bidder,price,...". ok is false for a line that
// is not a bid; err is set for a bid it cannot read.
func parseBid(line []byte) (b bid, ok bool, err error) {
	if len(line) < 2 || line[0] != 'B' || line[1] != ',' {
		return bid{}, false, nil
	}
	off := 2
	var fields [3]int64
	for i := range fields {
		j := bytes.IndexByte(line[off:], ',')
		if j < 0 {
			return bid{}, true, errNotBid
		}
		v, good := atoi(line[off : off+j])
		if !good {
			return bid{}, true, errNotBid
		}
		fields[i] = v
		if i == 2 {
			b.priceFrom, b.priceTo = off, off+j
		}
		off += j + 1
	}
	b.auction, b.bidder, b.price = fields[0], fields[1], fields[2]
	return b, true, nil
}

// atoi reads a non-negative decimal integer of 1 to 18 digits.
func atoi(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// Q1Native appends q1's output for one event line to dst. ok reports
// whether the line is a bid; other events give no output.
func Q1Native(dst, line []byte) (out []byte, ok bool, err error) {
	b, ok, err := parseBid(line)
	if !ok || err != nil {
		return dst, ok, err
	}
	dst = append(dst, line[2:b.priceFrom]...)
	dst = strconv.AppendInt(dst, Euros(b.price), 10)
	return append(dst, line[b.priceTo:]...), true, nil
}

// Q2Native appends q2's output for one event line to dst. ok reports
// whether there is output: the line is a bid on a selected auction.
func Q2Native(dst, line []byte) (out []byte, ok bool, err error) {
	b, ok, err := parseBid(line)
	if !ok || err != nil || b.auction%Q2Modulus != 0 {
		return dst, false, err
	}
	dst = strconv.AppendInt(dst, b.auction, 10)
	dst = append(dst, ',')
	return strconv.AppendInt(dst, b.price, 10), true, nil
}

// timeOrder checks that timestamps do not decrease.
type timeOrder struct {
	last    int64
	started bool
}

func (o *timeOrder) check(ts int64) error {
	if o.started && ts < o.last {
		return fmt.Errorf("nexmark: timestamp %d after %d: the native queries need events in time order", ts, o.last)
	}
	o.last, o.started = ts, true
	return nil
}

// Q5Native runs q5 over event lines in timestamp order. Its zero value is
// ready to use.
type Q5Native struct {
	order timeOrder
	// open maps the start of each window that has bids and has not fired
	// to its bid counts by auction.
	open map[int64]map[int64]int
	free []map[int64]int // cleared maps to reuse
	line []byte
}

// Add processes one event line at ts, which must not be below the previous
// one. It first fires the windows that end at or before ts, calling emit
// with each output line; emit must not retain the line.
func (q *Q5Native) Add(line []byte, ts int64, emit func([]byte)) error {
	if err := q.order.check(ts); err != nil {
		return err
	}
	q.fire(ts, emit)
	b, ok, err := parseBid(line)
	if !ok || err != nil {
		return err
	}
	if q.open == nil {
		q.open = map[int64]map[int64]int{}
	}
	for start := tumblingStart(ts, Q5Slide); start > ts-WindowSize; start -= Q5Slide {
		counts := q.open[start]
		if counts == nil {
			counts = q.newCounts()
			q.open[start] = counts
		}
		counts[b.auction]++
	}
	return nil
}

// Flush fires every open window, as at the end of the stream.
func (q *Q5Native) Flush(emit func([]byte)) {
	q.fire(math.MaxInt64, emit)
}

// fire emits and closes the windows that end at or before ts.
func (q *Q5Native) fire(ts int64, emit func([]byte)) {
	for start, counts := range q.open {
		if start+WindowSize > ts {
			continue
		}
		most := 0
		for _, c := range counts {
			most = max(most, c)
		}
		for auction, c := range counts {
			if c == most {
				q.line = strconv.AppendInt(q.line[:0], start+WindowSize, 10)
				q.line = append(q.line, ',')
				q.line = strconv.AppendInt(q.line, auction, 10)
				q.line = append(q.line, ',')
				q.line = strconv.AppendInt(q.line, int64(c), 10)
				emit(q.line)
			}
		}
		delete(q.open, start)
		clear(counts)
		q.free = append(q.free, counts)
	}
}

func (q *Q5Native) newCounts() map[int64]int {
	if n := len(q.free); n > 0 {
		m := q.free[n-1]
		q.free = q.free[:n-1]
		return m
	}
	return map[int64]int{}
}

// Q7Native runs q7 over event lines in timestamp order. Its zero value is
// ready to use.
type Q7Native struct {
	order timeOrder
	start int64 // the open window's start, when best is not empty
	best  []bid // the open window's bids at its highest price
	line  []byte
}

// Add processes one event line at ts, which must not be below the previous
// one. It first fires the open window if ts is at or past its end, calling
// emit with each output line; emit must not retain the line.
func (q *Q7Native) Add(line []byte, ts int64, emit func([]byte)) error {
	if err := q.order.check(ts); err != nil {
		return err
	}
	if len(q.best) > 0 && ts >= q.start+WindowSize {
		q.Flush(emit)
	}
	b, ok, err := parseBid(line)
	if !ok || err != nil {
		return err
	}
	switch {
	case len(q.best) == 0:
		q.start = tumblingStart(ts, WindowSize)
		q.best = append(q.best, b)
	case b.price > q.best[0].price:
		q.best = append(q.best[:0], b)
	case b.price == q.best[0].price:
		q.best = append(q.best, b)
	}
	return nil
}

// Flush fires the open window, as at the end of the stream.
func (q *Q7Native) Flush(emit func([]byte)) {
	for _, b := range q.best {
		q.line = strconv.AppendInt(q.line[:0], q.start+WindowSize, 10)
		q.line = append(q.line, ',')
		q.line = strconv.AppendInt(q.line, b.auction, 10)
		q.line = append(q.line, ',')
		q.line = strconv.AppendInt(q.line, b.bidder, 10)
		q.line = append(q.line, ',')
		q.line = strconv.AppendInt(q.line, b.price, 10)
		emit(q.line)
	}
	q.best = q.best[:0]
}
