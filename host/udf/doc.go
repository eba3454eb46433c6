// Package udf is the Go side of Floe's WebAssembly boundary: it loads
// operator modules, checks them against the ABI (sdk/ABI.md), links the
// floe_v1 host functions and runs one sandboxed instance per operator
// subtask.
//
// An Engine owns one wazero runtime and its compilation cache; a process
// has one. Engine.Compile validates and compiles a module once; Module.
// Instantiate makes an Instance per subtask. An Instance processes whole
// record batches: Process writes a batch into guest memory, makes one call,
// and collects what the guest emitted. Keyed state calls go to the Keyed
// store the instance was given, scoped to the key of the record the guest
// names.
//
// Everything a guest can do wrong comes back as a *UDFError naming the
// module, function and record: a trap, a panic, an error it reports, a call
// that overruns its deadline, or memory beyond the cap. Compile checks a
// module's declared sizes before wazero reads it, and instruments it so
// that a call can be stopped (host/internal/wasmbin).
package udf
