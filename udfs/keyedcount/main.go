// Command keyedcount counts records per key in keyed value state and emits
// "key,count" on every update. The benchmark harness (tests/bench) runs it
// next to the same logic written in native Go against the same state
// backend.
package main

import (
	"strconv"

	floe "github.com/floe-stream/floe/sdk/go"
)

func init() {
	floe.Process("count", count)
}

// counts holds each key's number of records so far.
var counts = floe.NewValueState("count", floe.Int64)

// line holds the output record being built.
var line []byte

// count adds one to the key's count and emits "key,count".
func count(ctx *floe.Context, _ []byte, out floe.Emitter) error {
	n, _ := counts.Get(ctx)
	n++
	counts.Put(ctx, n)
	line = append(append(line[:0], ctx.Key()...), ',')
	out.Emit(strconv.AppendInt(line, n, 10))
	return nil
}

func main() {}
