// Package nativehost joins the SDK, compiled natively rather than to
// WebAssembly, to a host written in Go: in practice the test harness of
// package floetest. It is internal so that operator modules cannot reach it;
// the SDK's public package exports no test hooks.
//
// The SDK keeps one operator instance per module, as the real host
// instantiates a module once per subtask, so the connection is one pair of
// package variables: Current, the host that the SDK's floe_v1 calls go to,
// set by the harness; and Module, the module's exports, set by the SDK when
// it is initialised.
package nativehost

// Host is what the SDK calls instead of the floe_v1 imports. Each method
// mirrors the import of the same name in sdk/ABI.md. Slices passed in are
// valid only during the call; a method that fills buf writes at most
// cap(buf) bytes and returns the full length, or -1 for none.
type Host interface {
	Emit(run []byte)
	OutputDeclare(name string) int32
	Fail(rec int32, msg string)
	StateDeclare(kind int32, name string, flags int32) int32
	ValueGet(state, rec int32, buf []byte) int32
	ValuePut(state, rec int32, v []byte)
	ValueDelete(state, rec int32)
	ListAppend(state, rec int32, v []byte)
	ListGet(state, rec int32, buf []byte) int32
	ListClear(state, rec int32)
	MapGet(state, rec int32, k, buf []byte) int32
	MapPut(state, rec int32, k, v []byte)
	MapDelete(state, rec int32, k []byte)
	MapEntries(state, rec int32, buf []byte) int32
	MapClear(state, rec int32)
	TimerRegister(rec, domain int32, ts int64)
	TimerDelete(rec, domain int32, ts int64)
	CurrentWatermark() int64
	ProcessingTime() int64
}

// Exports are the module's floe_v1 exports, as the host calls them: Alloc
// returns the input buffer of at least size bytes, and the others read
// their input from its first n bytes and return 0 or 1 (failed, after a
// call of Host.Fail).
type Exports struct {
	Alloc   func(size int) []byte
	Open    func(n int) int32
	Process func(n, count int) int32
	// Process2 is floe_process2, a batch of a two-input operator's second
	// input.
	Process2 func(n, count int) int32
	Close    func() int32
	Window   func(opcode int32, n int) int32
	OnTimer  func(domain int32, ts int64, keyLen int) int32
}

// NB: these are package variables because the module they stand for is a
// singleton: a Go process holds one SDK instance, as a Wasm instance does.
var (
	// Current is the host the SDK calls; the harness sets it before it
	// calls an export.
	Current Host
	// Module holds the exports; the SDK sets it in its init.
	Module Exports
)
