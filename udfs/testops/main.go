// Command testops holds operators that exercise the host: the ABI's data
// paths, keyed state of every kind, side outputs, and every way a guest can
// misbehave. Tests build it from source.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"

	floe "github.com/floe-stream/floe/sdk/go"
)

func init() {
	floe.Map("upper", func(rec []byte) ([]byte, error) { return bytes.ToUpper(rec), nil })
	floe.Filter("nonempty", func(rec []byte) (bool, error) { return len(rec) > 0, nil })
	floe.FlatMap("fields", fields)
	floe.KeySelector("first-field", func(rec []byte) ([]byte, error) {
		k, _, _ := bytes.Cut(rec, []byte(","))
		return k, nil
	})
	floe.Process("state", stateOps)
	floe.Map("misbehave", misbehave)
}

// fields emits each comma-separated field; fields starting with '#' go to
// the side output "comments".
func fields(rec []byte, out floe.Emitter) error {
	for _, f := range bytes.Split(rec, []byte(",")) {
		if bytes.HasPrefix(f, []byte("#")) {
			out.EmitTo("comments", f)
			continue
		}
		out.Emit(f)
	}
	return nil
}

var (
	seen  = floe.NewValueState("seen", floe.Int64, floe.Queryable())
	items = floe.NewListState("items", floe.String)
	tally = floe.NewMapState("tally", floe.String, floe.Int64)
)

// stateOps keeps per key: how many records (value), every record (list) and
// how often each record (map); "clear" clears them all. It emits
// "key:seen:listlen:distinct".
func stateOps(ctx *floe.Context, rec []byte, out floe.Emitter) error {
	if string(rec) == "clear" {
		seen.Delete(ctx)
		items.Clear(ctx)
		tally.Clear(ctx)
		out.Emit(fmt.Appendf(nil, "%s:cleared", ctx.Key()))
		return nil
	}
	n, _ := seen.Get(ctx)
	seen.Put(ctx, n+1)
	items.Append(ctx, string(rec))
	c, _ := tally.Get(ctx, string(rec))
	tally.Put(ctx, string(rec), c+1)
	entries := 0
	for range tally.All(ctx) {
		entries++
	}
	out.Emit(fmt.Appendf(nil, "%s:%d:%d:%d", ctx.Key(), n+1, len(items.Get(ctx)), entries))
	return nil
}

// hoard keeps what the memory bomb allocates reachable.
var hoard [][]byte

// misbehave passes records through, except those that name a misdeed.
func misbehave(rec []byte) ([]byte, error) {
	switch string(rec) {
	case "panic":
		panic("asked to panic")
	case "error":
		return nil, errors.New("poison record")
	case "loop":
		for i := 0; ; i++ {
			if i < 0 {
				return strconv.AppendInt(nil, int64(i), 10), nil
			}
		}
	case "bomb":
		for {
			hoard = append(hoard, make([]byte, 1<<20))
		}
	}
	return rec, nil
}

func main() {}

func init() {
	floe.Map("slow", slow)
}

// slow passes records through after about a millisecond each: a
// deliberately slow operator that back-pressures its upstream.
//
// NB: the host gives guests no sleeping clock (wazero's nanosleep is a
// no-op unless configured), so time.Sleep under wasip1 spins in the Go
// runtime's idle loop until the deadline; either way the call takes as
// long as asked.
func slow(rec []byte) ([]byte, error) {
	time.Sleep(time.Millisecond)
	return rec, nil
}
