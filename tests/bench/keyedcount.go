package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/storage/keygroup"
)

// countOperator is the operator uid of the keyed count; with the state name
// it makes the namespace both sides use.
const countOperator = "keyedcount"

// benchKeyedCount counts records per key in pebble-backed value state
// (udfs/keyedcount). Each run starts from an empty store and ends with a
// flush, as a checkpoint would.
func benchKeyedCount(e *env) (Result, error) {
	w := countWorkload(e.cfg.Records, e.cfg.Keys, 1)
	wasm := openCountWasm(e)
	native := openCountNative(e)
	if err := compare(e.ctx, w, compareBatches, wasm, native); err != nil {
		return Result{}, fmt.Errorf("wasm and native disagree: %w", err)
	}
	return measure(e, "keyed-count-pebble", w, wasm, native)
}

func openCountWasm(e *env) opener {
	cfg := udf.InstanceConfig{
		Function: "count", Operator: countOperator,
		Params: map[string]string{"floe.max_parallelism": strconv.Itoa(keygroup.DefaultMaxParallelism)},
	}
	return openWasm(e, "keyedcount", cfg, true)
}

// countWorkload returns records keyed records in batches of batchSize, each
// key drawn at random from nkeys distinct keys of 8 to 16 bytes. A record's
// value is its key, as after a keyBy on the whole record.
func countWorkload(records, nkeys int, seed uint64) *workload {
	r := rand.New(rand.NewPCG(seed, 0x636f756e74))
	keys := distinctKeys(r, nkeys)
	pool := make([]record.Batch, (records+batchSize-1)/batchSize)
	for i := range records {
		k := keys[r.IntN(len(keys))]
		kg := keygroup.Of(k, keygroup.DefaultMaxParallelism)
		pool[i/batchSize].AppendKeyed(k, k, int64(i), kg)
	}
	return &workload{pool: pool, batches: len(pool)}
}

// distinctKeys returns n distinct keys of 8 to 16 bytes: random letters and
// digits, then the key's index in base 36 on 4 digits (5 from 36^4 keys
// on), which makes them distinct.
func distinctKeys(r *rand.Rand, n int) [][]byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	width := 4
	if n > 36*36*36*36 {
		width = 5
	}
	keys := make([][]byte, n)
	for i := range keys {
		k := make([]byte, 8+r.IntN(9))
		pad := len(k) - width
		for j := range pad {
			k[j] = alphabet[r.IntN(len(alphabet))]
		}
		for j, x := len(k)-1, i; j >= pad; j, x = j-1, x/36 {
			k[j] = alphabet[x%36]
		}
		keys[i] = k
	}
	return keys
}

// countNative is udfs/keyedcount as a native operator, on the same kind of
// state backend and through the same interface the host gives the guest.
type countNative struct {
	state  *pebbleState
	counts udf.ValueState
	enc    [8]byte
	line   []byte // line holds the output record being built.
}

func openCountNative(e *env) opener {
	return func(context.Context) (operator, error) {
		st, err := openPebble(e)
		if err != nil {
			return nil, err
		}
		v, err := st.backend.Value(countOperator + "/count")
		if err != nil {
			return nil, errors.Join(err, st.close())
		}
		return &countNative{state: st, counts: v}, nil
	}
}

func (c *countNative) Process(_ context.Context, in, out *record.Batch) error {
	for i := range in.Records {
		r := &in.Records[i]
		if err := c.count(r, out); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
	}
	return nil
}

// count adds one to the key's count and emits "key,count".
func (c *countNative) count(r *record.Record, out *record.Batch) error {
	cur, ok, err := c.counts.Get(r.KeyGroup, r.Key)
	if err != nil {
		return err
	}
	var n int64
	if ok {
		if len(cur) != 8 {
			return fmt.Errorf("int64 state value of %d bytes, want 8", len(cur))
		}
		n = int64(binary.LittleEndian.Uint64(cur))
	}
	n++
	binary.LittleEndian.PutUint64(c.enc[:], uint64(n))
	if err := c.counts.Put(r.KeyGroup, r.Key, c.enc[:]); err != nil {
		return err
	}
	c.line = append(append(c.line[:0], r.Key...), ',')
	out.Append(nil, strconv.AppendInt(c.line, n, 10), r.Timestamp)
	return nil
}

func (c *countNative) Finish() error { return c.state.flush() }
func (c *countNative) Close() error  { return c.state.close() }
