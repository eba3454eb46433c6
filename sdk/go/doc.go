// Package floe is the Go SDK for writing Floe operators as WebAssembly
// modules.
//
// A module registers plain Go functions under names in an init function, and
// a job spec picks them by name:
//
//	func init() {
//		floe.FlatMap("split", split)
//		floe.Process("count", count)
//	}
//
//	var counts = floe.NewValueState("counts", floe.Int64, floe.Queryable())
//
//	func count(ctx *floe.Context, word []byte, out floe.Emitter) error {
//		n, _ := counts.Get(ctx)
//		counts.Put(ctx, n+1)
//		out.Emit(fmt.Appendf(nil, "%s,%d", word, n+1))
//		return nil
//	}
//
//	func main() {}
//
// Build with the standard toolchain:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o op.wasm .
//
// The SDK speaks Floe's ABI version 1 (sdk/ABI.md): records arrive in
// batches, output is buffered and handed to the host once per batch, and
// keyed state lives in the host, scoped to the key of the record being
// processed. None of that shows in the API: functions see one record's bytes,
// an Emitter and, for keyed functions, a Context.
//
// A job spec's coProcess names two process functions, one per input; the
// host runs both in one instance, so they share the key's state and timers
// (timers fire into the first function's OnTimer handler, or the second's
// when the first has none). One of its inputs may be a broadcast input
// (broadcast: in the spec), whose records reach every subtask unkeyed: its
// function keeps a BroadcastState that the other function reads.
//
// Functions are called from one goroutine; an operator needs no locking.
// Slices passed to a function are valid only during the call: copy what you
// keep. A returned error or a panic fails the job with the message and the
// record that caused it.
package floe
