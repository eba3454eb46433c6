package nexmark

import (
	"bytes"
	"container/heap"
	"errors"
	"math"
	"strconv"
)

// The native forms of the queries over several kinds of event read the
// mixed stream in time order, as one process that sees every event would:
// an auction always comes before the bids that can count for it, and an
// auction is closed once an event past its expiry comes. They are written
// for speed, for the benchmarks' comparison, and produce the same lines as
// the brute force.

var errEvent = errors.New("nexmark: malformed event")

// splitLine cuts line at its commas into f and reports whether it has
// exactly len(f) fields.
func splitLine(line []byte, f [][]byte) bool {
	for i := range f {
		j := bytes.IndexByte(line, ',')
		if i == len(f)-1 {
			f[i] = line
			return j < 0
		}
		if j < 0 {
			return false
		}
		f[i], line = line[:j], line[j+1:]
	}
	return false
}

// Q3Native runs q3 over event lines. Its zero value is ready to use.
type Q3Native struct {
	sellers map[int64][]byte  // selected person -> "name,city,state"
	waiting map[int64][]int64 // seller not seen yet -> auctions of category 10
	f       [10][]byte
	line    []byte
}

// Add processes one event line; ts is unused: q3 is not windowed.
func (q *Q3Native) Add(line []byte, _ int64, emit func([]byte)) error {
	if q.sellers == nil {
		q.sellers, q.waiting = map[int64][]byte{}, map[int64][]int64{}
	}
	switch {
	case len(line) > 0 && line[0] == 'P':
		f := q.f[:8]
		if !splitLine(line, f) {
			return errEvent
		}
		if s := string(f[6]); s != "OR" && s != "ID" && s != "CA" {
			return nil
		}
		id, ok := atoi(f[1])
		if !ok {
			return errEvent
		}
		seller := append(append(append(append(append([]byte(nil), f[2]...), ','), f[5]...), ','), f[6]...)
		q.sellers[id] = seller
		for _, a := range q.waiting[id] {
			q.emit(seller, a, emit)
		}
		delete(q.waiting, id)
	case len(line) > 0 && line[0] == 'A':
		f := q.f[:10]
		if !splitLine(line, f) {
			return errEvent
		}
		if string(f[9]) != "10" {
			return nil
		}
		id, ok1 := atoi(f[1])
		seller, ok2 := atoi(f[8])
		if !ok1 || !ok2 {
			return errEvent
		}
		if s, ok := q.sellers[seller]; ok {
			q.emit(s, id, emit)
		} else {
			q.waiting[seller] = append(q.waiting[seller], id)
		}
	}
	return nil
}

func (q *Q3Native) emit(seller []byte, auction int64, emit func([]byte)) {
	q.line = append(append(q.line[:0], seller...), ',')
	emit(strconv.AppendInt(q.line, auction, 10))
}

// Flush does nothing: q3 emits as it joins.
func (q *Q3Native) Flush(func([]byte)) {}

// openAuction is an auction whose expiry has not passed, and its best bid
// so far.
type openAuction struct {
	id, start, end, category int64
	line                     []byte // the auction's line without "A,"
	best                     bid
	bestTime                 int64
	found                    bool
}

// expiries is a min-heap of open auctions by end.
type expiries []*openAuction

func (h expiries) Len() int           { return len(h) }
func (h expiries) Less(i, j int) bool { return h[i].end < h[j].end }
func (h expiries) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiries) Push(x any)        { *h = append(*h, x.(*openAuction)) }
func (h *expiries) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// winners finds each auction's winning bid over event lines in time order
// and calls closed with each auction that expired with one.
type winners struct {
	open   map[int64]*openAuction
	byEnd  expiries
	f      [10][]byte
	closed func(a *openAuction)
}

// add processes one event line at ts, first closing the auctions that
// expired before ts.
func (w *winners) add(line []byte, ts int64) error {
	if w.open == nil {
		w.open = map[int64]*openAuction{}
	}
	w.closeBefore(ts)
	switch {
	case len(line) > 0 && line[0] == 'A':
		f := w.f[:10]
		var v [4]int64
		if !splitLine(line, f) || !parseInts(v[:], f[1], f[6], f[7], f[9]) {
			return errEvent
		}
		a := &openAuction{id: v[0], start: v[1], end: v[2], category: v[3], line: append([]byte(nil), line[2:]...)}
		w.open[a.id] = a
		heap.Push(&w.byEnd, a)
	case len(line) > 0 && line[0] == 'B':
		b, _, err := parseBid(line)
		if err != nil {
			return err
		}
		a, ok := w.open[b.auction]
		if !ok || ts < a.start || ts > a.end {
			return nil
		}
		if !a.found || b.price > a.best.price || b.price == a.best.price && (ts < a.bestTime || ts == a.bestTime && b.bidder < a.best.bidder) {
			a.best, a.bestTime, a.found = b, ts, true
		}
	}
	return nil
}

// closeBefore closes the auctions whose end is below ts.
func (w *winners) closeBefore(ts int64) {
	for len(w.byEnd) > 0 && w.byEnd[0].end < ts {
		a := heap.Pop(&w.byEnd).(*openAuction)
		delete(w.open, a.id)
		if a.found {
			w.closed(a)
		}
	}
}

func parseInts(v []int64, b ...[]byte) bool {
	for i := range b {
		var ok bool
		if v[i], ok = atoi(b[i]); !ok {
			return false
		}
	}
	return true
}

// Q9Native runs q9 over event lines in time order. Its zero value is ready
// to use.
type Q9Native struct {
	w    winners
	line []byte
	emit func([]byte)
}

// Add processes one event line at ts, which must not be below the
// previous one.
func (q *Q9Native) Add(line []byte, ts int64, emit func([]byte)) error {
	q.setEmit(emit)
	return q.w.add(line, ts)
}

// Flush closes every open auction, as at the end of the stream.
func (q *Q9Native) Flush(emit func([]byte)) {
	q.setEmit(emit)
	q.w.closeBefore(math.MaxInt64)
}

func (q *Q9Native) setEmit(emit func([]byte)) {
	q.emit = emit
	if q.w.closed == nil {
		q.w.closed = func(a *openAuction) {
			q.line = append(append(q.line[:0], a.line...), ',')
			q.line = append(strconv.AppendInt(q.line, a.best.bidder, 10), ',')
			q.line = append(strconv.AppendInt(q.line, a.best.price, 10), ',')
			q.emit(strconv.AppendInt(q.line, a.bestTime, 10))
		}
	}
}

// Q4Native runs q4 over event lines in time order. Its zero value is ready
// to use.
type Q4Native struct {
	w       winners
	windows map[[2]int64]sums // (window end, category) -> closes not reported
	totals  map[int64]sums    // category -> closes reported
	ends    []int64           // window ends with closes, ascending
	line    []byte
}

type sums struct{ total, n int64 }

// Add processes one event line at ts, which must not be below the
// previous one: it closes the auctions that expired before ts, then
// reports the windows that ended at or before ts.
func (q *Q4Native) Add(line []byte, ts int64, emit func([]byte)) error {
	q.init()
	if err := q.w.add(line, ts); err != nil {
		return err
	}
	q.report(ts, emit)
	return nil
}

// Flush closes every auction and reports every window.
func (q *Q4Native) Flush(emit func([]byte)) {
	q.init()
	q.w.closeBefore(math.MaxInt64)
	q.report(math.MaxInt64, emit)
}

func (q *Q4Native) init() {
	if q.windows != nil {
		return
	}
	q.windows, q.totals = map[[2]int64]sums{}, map[int64]sums{}
	q.w.closed = func(a *openAuction) {
		end := tumblingStart(a.end, WindowSize) + WindowSize
		k := [2]int64{end, a.category}
		s, ok := q.windows[k]
		if !ok && (len(q.ends) == 0 || q.ends[len(q.ends)-1] < end) {
			q.ends = append(q.ends, end)
		}
		q.windows[k] = sums{s.total + a.best.price, s.n + 1}
	}
}

// report emits the windows whose end is at or before ts.
func (q *Q4Native) report(ts int64, emit func([]byte)) {
	for len(q.ends) > 0 && q.ends[0] <= ts {
		end := q.ends[0]
		q.ends = q.ends[1:]
		for c := int64(firstCategory); c < firstCategory+categories; c++ {
			s, ok := q.windows[[2]int64{end, c}]
			if !ok {
				continue
			}
			delete(q.windows, [2]int64{end, c})
			t := q.totals[c]
			t = sums{t.total + s.total, t.n + s.n}
			q.totals[c] = t
			q.line = append(strconv.AppendInt(q.line[:0], end, 10), ',')
			q.line = append(strconv.AppendInt(q.line, c, 10), ',')
			emit(strconv.AppendInt(q.line, t.total/t.n, 10))
		}
	}
}

// Q4AverageNative runs Q4Average over event lines in time order: each
// auction's winner as it expires, summed into its category, the averages
// emitted at the end. Its zero value is ready to use.
type Q4AverageNative struct {
	w      winners
	totals [categories]sums
	line   []byte
}

// Add processes one event line at ts, which must not be below the
// previous one.
func (q *Q4AverageNative) Add(line []byte, ts int64, _ func([]byte)) error {
	q.init()
	return q.w.add(line, ts)
}

// Flush closes every auction and emits each category's average.
func (q *Q4AverageNative) Flush(emit func([]byte)) {
	q.init()
	q.w.closeBefore(math.MaxInt64)
	for i, s := range q.totals {
		if s.n == 0 {
			continue
		}
		q.line = append(strconv.AppendInt(q.line[:0], int64(firstCategory+i), 10), ',')
		emit(append(q.line, averageText(s)...))
	}
}

func (q *Q4AverageNative) init() {
	if q.w.closed != nil {
		return
	}
	q.w.closed = func(a *openAuction) {
		s := &q.totals[a.category-firstCategory]
		s.total, s.n = s.total+a.best.price, s.n+1
	}
}

// The categories of the generator's auctions.
const (
	firstCategory = 10
	categories    = 5
)

// Q11Native runs q11 over event lines in time order. Its zero value is
// ready to use.
type Q11Native struct {
	open  map[int64]*session // bidder -> open session
	swept int64              // event time of the last sweep
	line  []byte
}

type session struct{ start, last, n int64 }

// Add processes one event line at ts, which must not be below the
// previous one. A bid joins its bidder's session when it comes at most
// Q11Gap after its last bid; every second of event time the sessions that
// can take no more bids are emitted.
func (q *Q11Native) Add(line []byte, ts int64, emit func([]byte)) error {
	if q.open == nil {
		q.open = map[int64]*session{}
	}
	b, ok, err := parseBid(line)
	if err != nil {
		return err
	}
	if ok {
		s := q.open[b.bidder]
		switch {
		case s == nil:
			q.open[b.bidder] = &session{start: ts, last: ts, n: 1}
		case ts-s.last <= Q11Gap:
			s.last, s.n = ts, s.n+1
		default:
			q.emit(b.bidder, s, emit)
			*s = session{start: ts, last: ts, n: 1}
		}
	}
	if ts-q.swept >= 1000 {
		q.sweep(ts, emit)
	}
	return nil
}

// Flush emits every open session.
func (q *Q11Native) Flush(emit func([]byte)) { q.sweep(math.MaxInt64, emit) }

// sweep emits and forgets the sessions that no bid at ts or later can join.
func (q *Q11Native) sweep(ts int64, emit func([]byte)) {
	q.swept = ts
	for bidder, s := range q.open {
		if ts == math.MaxInt64 || ts-s.last > Q11Gap {
			q.emit(bidder, s, emit)
			delete(q.open, bidder)
		}
	}
}

func (q *Q11Native) emit(bidder int64, s *session, emit func([]byte)) {
	q.line = append(strconv.AppendInt(q.line[:0], bidder, 10), ',')
	q.line = append(strconv.AppendInt(q.line, s.n, 10), ',')
	q.line = append(strconv.AppendInt(q.line, s.start, 10), ',')
	emit(strconv.AppendInt(q.line, s.last+Q11Gap, 10))
}
