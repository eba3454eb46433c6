//go:build !wasip1

package floe

// Outside WebAssembly the SDK talks to a Host set by a test, so operators
// and the SDK itself can be unit-tested with the ordinary toolchain.

// Host is what the SDK calls instead of the floe_v1 imports when it is not
// compiled to WebAssembly. Tests install one with SetTestHost.
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

var testHost Host

// SetTestHost installs h as the host for native (non-Wasm) tests.
func SetTestHost(h Host) { testHost = h }

// TestAlloc, TestOpen, TestProcess and TestClose call what the module's
// floe_alloc, floe_open, floe_process and floe_close exports call.
func TestAlloc(size int) []byte      { return op.grow(size) }
func TestOpen(n int) int32           { return op.open(n) }
func TestProcess(n, count int) int32 { return op.process(n, count) }
func TestClose() int32               { return op.close() }

// TestWindow calls what the module's floe_window export calls.
func TestWindow(opcode int32, n int) int32 { return op.window(opcode, n) }

// TestOnTimer calls what the module's floe_on_timer export calls.
func TestOnTimer(d TimeDomain, ts int64, keyLen int) int32 { return op.onTimer(d, ts, keyLen) }
func hostEmit(b []byte)                                    { testHost.Emit(b) }
func hostOutputDeclare(name string) int32                  { return testHost.OutputDeclare(name) }
func hostFail(rec int32, msg string)                       { testHost.Fail(rec, msg) }
func hostStateDeclare(kind int32, name string, flags int32) int32 {
	return testHost.StateDeclare(kind, name, flags)
}
func hostValueGet(state, rec int32, buf []byte) int32 {
	return testHost.ValueGet(state, rec, buf[:cap(buf)])
}
func hostValuePut(state, rec int32, v []byte)   { testHost.ValuePut(state, rec, v) }
func hostValueDelete(state, rec int32)          { testHost.ValueDelete(state, rec) }
func hostListAppend(state, rec int32, v []byte) { testHost.ListAppend(state, rec, v) }
func hostListGet(state, rec int32, buf []byte) int32 {
	return testHost.ListGet(state, rec, buf[:cap(buf)])
}
func hostListClear(state, rec int32) { testHost.ListClear(state, rec) }
func hostMapGet(state, rec int32, k, buf []byte) int32 {
	return testHost.MapGet(state, rec, k, buf[:cap(buf)])
}
func hostMapPut(state, rec int32, k, v []byte) { testHost.MapPut(state, rec, k, v) }
func hostMapDelete(state, rec int32, k []byte) { testHost.MapDelete(state, rec, k) }
func hostMapEntries(state, rec int32, buf []byte) int32 {
	return testHost.MapEntries(state, rec, buf[:cap(buf)])
}
func hostMapClear(state, rec int32)                 { testHost.MapClear(state, rec) }
func hostTimerRegister(rec, domain int32, ts int64) { testHost.TimerRegister(rec, domain, ts) }
func hostTimerDelete(rec, domain int32, ts int64)   { testHost.TimerDelete(rec, domain, ts) }
func hostCurrentWatermark() int64                   { return testHost.CurrentWatermark() }
func hostProcessingTime() int64                     { return testHost.ProcessingTime() }
