package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/udf"
)

// batchSize is the number of records of every input batch.
const batchSize = 1024

// q1PoolRecords bounds the distinct bids q1 generates; longer runs cycle
// through them, which a stateless map cannot tell.
const q1PoolRecords = 1 << 18

// compareBatches is how many batches each benchmark checks for identical
// output before timing.
const compareBatches = 64

// benchQ1 is Nexmark q1: a stateless map converting each bid's price to
// euros (udfs/q1).
func benchQ1(e *env) (Result, error) {
	w := q1Workload(e.cfg.Records)
	wasm := openWasm(e, "q1", q1Config(), false)
	if err := compare(e.ctx, w, compareBatches, wasm, openQ1Native); err != nil {
		return Result{}, fmt.Errorf("wasm and native disagree: %w", err)
	}
	return measure(e, "q1-map", w, wasm, openQ1Native)
}

func q1Config() udf.InstanceConfig { return udf.InstanceConfig{Function: "q1", Operator: "q1"} }

// q1Workload returns records bids in batches of batchSize, generated from a
// fixed seed.
func q1Workload(records int) *workload {
	batches := (records + batchSize - 1) / batchSize
	pool := bids(min(records, q1PoolRecords), 1)
	return &workload{pool: pool, batches: batches}
}

// bids generates n Nexmark-style bids as CSV lines
// "auction,bidder,price,channel,url,dateTime", in batches of batchSize, with
// each record's timestamp its dateTime.
func bids(n int, seed uint64) []record.Batch {
	r := rand.New(rand.NewPCG(seed, 0x6e65786d61726b))
	ts := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC).UnixMilli()
	var line []byte
	pool := make([]record.Batch, (n+batchSize-1)/batchSize)
	for i := range n {
		ts += r.Int64N(4)
		channel := r.IntN(10_000)
		line = strconv.AppendInt(line[:0], 1000+r.Int64N(10_000), 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, 1000+r.Int64N(100_000), 10)
		line = append(line, ',')
		// Nexmark's prices: log-uniform from $1 to $1M, in cents.
		line = strconv.AppendInt(line, int64(math.Pow(10, 6*r.Float64()))*100, 10)
		line = fmt.Appendf(line, ",channel-%d,https://www.nexmark.com/item.htm?query=1&channel_id=%d,", channel, channel)
		line = time.UnixMilli(ts).UTC().AppendFormat(line, "2006-01-02 15:04:05.000")
		pool[i/batchSize].Append(nil, line, ts)
	}
	return pool
}

// q1Native is udfs/q1 as a native operator.
type q1Native struct {
	out []byte // out holds the output record being built.
}

func openQ1Native(context.Context) (operator, error) { return &q1Native{}, nil }

func (q *q1Native) Process(_ context.Context, in, out *record.Batch) error {
	for i := range in.Records {
		r := &in.Records[i]
		v, err := q.q1(r.Value)
		if err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		out.Append(nil, v, r.Timestamp)
	}
	return nil
}

func (q *q1Native) Finish() error { return nil }
func (q *q1Native) Close() error  { return nil }

var (
	errQ1Fields = errors.New("q1: a bid has 6 comma-separated fields")
	errQ1Price  = errors.New("q1: the price is not an integer of 1 to 18 digits")
)

// q1 re-encodes a bid with its price in euros. It is the function of
// udfs/q1/main.go, line for line, but for the buffer it builds in.
func (q *q1Native) q1(bid []byte) ([]byte, error) {
	var commas [5]int
	off := 0
	for i := range commas {
		j := bytes.IndexByte(bid[off:], ',')
		if j < 0 {
			return nil, errQ1Fields
		}
		commas[i] = off + j
		off += j + 1
	}
	if bytes.IndexByte(bid[off:], ',') >= 0 {
		return nil, errQ1Fields
	}
	price, ok := parsePrice(bid[commas[1]+1 : commas[2]])
	if !ok {
		return nil, errQ1Price
	}
	q.out = append(q.out[:0], bid[:commas[1]+1]...)
	q.out = strconv.AppendInt(q.out, toEuros(price), 10)
	q.out = append(q.out, bid[commas[2]:]...)
	return q.out, nil
}

// parsePrice reads a non-negative decimal integer of 1 to 18 digits.
func parsePrice(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var p int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		p = p*10 + int64(c-'0')
	}
	return p, true
}

// toEuros returns dollars × 0.908 rounded toward zero, without overflow.
func toEuros(dollars int64) int64 {
	return dollars/1000*908 + dollars%1000*908/1000
}
