package main

import (
	"encoding/binary"

	floe "github.com/floe-stream/floe/sdk/go"
)

// q4, average closing price per category: the winning bid of each auction
// (winning.go) as "category,price" at the auction's expires, keyed by
// category into q4-average. Flink's q4 is an updating average over all
// closed auctions; here it is read at the end of every tumbling window of
// window_ms (10 s) of event time in which an auction of the category
// closed: "windowEnd,category,average" is the average, rounded down to a
// cent, of the winning prices of all the category's auctions that closed
// before windowEnd. Each window's closes are summed apart until the
// watermark passes the window (a close of a later window may come first)
// and only then added to the running total, so the output is the same
// whatever the order of arrival.

func init() {
	floe.Process("q4-average", q4Average)
	floe.OnTimer("q4-average", q4Report)
}

var (
	// q4Total holds the sum and count of a category's closing prices
	// reported so far (encodeSum).
	q4Total = floe.NewValueState("q4-total", floe.Bytes)
	// q4Windows holds the sum and count of the closes of each window not
	// yet reported, by window end.
	q4Windows = floe.NewMapState("q4-windows", floe.Int64, floe.Bytes)
)

type sum struct{ total, count int64 }

func encodeSum(dst []byte, s sum) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(s.total))
	return binary.LittleEndian.AppendUint64(dst, uint64(s.count))
}

func decodeSum(p []byte) sum {
	if len(p) != 16 {
		return sum{}
	}
	return sum{int64(binary.LittleEndian.Uint64(p)), int64(binary.LittleEndian.Uint64(p[8:]))}
}

var sumBuf []byte

// q4Average adds a close "category,price" to its window's sum.
func q4Average(ctx *floe.Context, rec []byte, _ floe.Emitter) error {
	i := floe.IndexByte(rec, ',')
	if i < 0 {
		return errEvent
	}
	price, ok := atoi(rec[i+1:])
	if !ok {
		return errEvent
	}
	ts := ctx.Timestamp()
	end := ts - ts%int64(windowMillis) + int64(windowMillis)
	p, _ := q4Windows.Get(ctx, end)
	s := decodeSum(p)
	s.total += price
	s.count++
	sumBuf = encodeSum(sumBuf[:0], s)
	q4Windows.Put(ctx, end, sumBuf)
	ctx.RegisterEventTimer(end - 1)
	return nil
}

// q4Report adds a window's closes to the category's total and emits the
// average.
func q4Report(ctx *floe.Context, t floe.Timer, emit floe.Emitter) error {
	end := t.Timestamp + 1
	p, ok := q4Windows.Get(ctx, end)
	if !ok {
		return nil
	}
	q4Windows.Delete(ctx, end)
	w := decodeSum(p)
	tp, _ := q4Total.Get(ctx)
	s := decodeSum(tp)
	s.total += w.total
	s.count += w.count
	sumBuf = encodeSum(sumBuf[:0], s)
	q4Total.Put(ctx, sumBuf)
	line = append(floe.AppendInt(line[:0], end), ',')
	line = append(append(line, ctx.Key()...), ',')
	emit.Emit(floe.AppendInt(line, s.total/s.count))
	return nil
}
