// Package wasmbin reads and rewrites operator modules in the WebAssembly
// binary format before wazero compiles them. It does two jobs that wazero
// leaves to its embedder.
//
// # Limits
//
// Check refuses a module whose declared counts would have the runtime
// allocate far more than the module's own size. wazero sizes its slices by
// the counts a module declares, so a module of a few bytes that declares
// four billion results or locals can take a process's memory. Check holds
// every count to what its section has room for, and to limits in the style
// of wasmparser's (Wasmtime's decoder): 50,000 locals per function, 1,000
// parameters or results per type, 100,000 imports, and so on.
//
// # Interruption
//
// Instrument rewrites a module so that a host can stop a guest that runs
// too long, at a cost of a few instructions per loop iteration. It adds a
// mutable i32 global, the fuel, and an imported function, Module.Func, of
// type () -> i32. At the top of every loop, and on entry to every function
// that makes calls, the instrumented code decrements the fuel; when the fuel
// is already zero it first calls the import and refills the fuel with what
// the import returns. So a guest whose import returns n calls it once every
// n checks. The import decides whether the call may go on (it returns the
// next fuel) or must stop (it panics, which wazero turns into the call's
// error).
//
// Every way a call can run long passes one of the checks: a loop passes its
// header on every iteration, and recursion, however it branches, enters
// functions that make calls. A function that neither loops nor calls runs
// straight through its code. A function whose code reaches a loop through
// straight-line code (blocks, locals, globals, constants) has no entry check
// of its own: its loop's check runs first on every entry.
//
// Go compiles every function to such a loop, which all its jumps dispatch
// through, forward ones too. A jump forward to a constant target is
// rewritten to branch straight there, past the loop's header and its check
// (dispatch.go): it cannot lead back to the loop without a jump back.
//
// NB: wazero's own WithCloseOnContextDone does the same job by leaving
// compiled code for Go on every loop iteration, which made guests 3–4x slower
// (see RATIONALE.md). Leaving for Go once every few thousand iterations also
// gives Go's scheduler and garbage collector the chance to preempt the
// goroutine, which they cannot do while it runs compiled Wasm.
//
// Function indices above the module's imports move up by one, because the
// new import joins them; Instrument renumbers every reference (calls,
// ref.func, exports, the start function, element segments and the name
// section). DWARF sections are dropped: the code offsets they describe move.
//
// Neither function validates a module: that is wazero's job. They read only
// as far as they must, and a module they cannot follow is an error.
package wasmbin
