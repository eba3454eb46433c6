// Package floetest unit-tests Go operators natively, without a Wasm host:
// plain go test on the build machine runs a module's functions against an
// in-memory fake of Floe's host, through the same exports the real host
// calls (sdk/ABI.md). It is the Go counterpart of the Rust SDK's
// floe::testing.
//
// A test opens the function under test by the name it was registered with,
// feeds it batches of records (each with a key and a timestamp), moves the
// watermark and processing time to fire the timers it registered, runs
// window functions over one window, and reads what it emitted and the state
// it stored:
//
//	h := floetest.New()
//	if err := h.Open("count", nil); err != nil {
//		t.Fatal(err)
//	}
//	out, err := h.Process(floetest.Keyed("a", "a").At(5), floetest.Keyed("a", "a"))
//	// out: "main @5 a,1", "main a,2"
//	n, _ := h.Value("counts", []byte("a")) // 8 bytes, little-endian 2
//
// State, timers and operator lists live in the Harness and outlive an
// instance, so opening again works as a restore. The SDK holds one operator
// instance per process, as a Wasm module holds one per instance, so use one
// Harness at a time: tests that use one must not run in parallel.
//
// The package is for native builds only; built for wasip1 it is empty.
package floetest
