//go:build !wasip1

package floe

import "github.com/floe-stream/floe/sdk/go/internal/nativehost"

// Outside WebAssembly the SDK calls the host that package floetest
// installs, and offers it the exports a Wasm module would, so that operators
// and the SDK itself can be unit-tested with the ordinary toolchain.

func init() {
	nativehost.Module = nativehost.Exports{
		Alloc:    op.grow,
		Open:     op.open,
		Process:  op.process,
		Process2: op.process2,
		Close:    op.close,
		Window:   op.window,
		OnTimer:  func(d int32, ts int64, keyLen int) int32 { return op.onTimer(TimeDomain(d), ts, keyLen) },
	}
}

func host() nativehost.Host { return nativehost.Current }

func hostEmit(b []byte)                   { host().Emit(b) }
func hostOutputDeclare(name string) int32 { return host().OutputDeclare(name) }
func hostFail(rec int32, msg string)      { host().Fail(rec, msg) }
func hostStateDeclare(kind int32, name string, flags int32) int32 {
	return host().StateDeclare(kind, name, flags)
}
func hostValueGet(state, rec int32, buf []byte) int32 {
	return host().ValueGet(state, rec, buf[:cap(buf)])
}
func hostValuePut(state, rec int32, v []byte)   { host().ValuePut(state, rec, v) }
func hostValueDelete(state, rec int32)          { host().ValueDelete(state, rec) }
func hostListAppend(state, rec int32, v []byte) { host().ListAppend(state, rec, v) }
func hostListGet(state, rec int32, buf []byte) int32 {
	return host().ListGet(state, rec, buf[:cap(buf)])
}
func hostListClear(state, rec int32) { host().ListClear(state, rec) }
func hostMapGet(state, rec int32, k, buf []byte) int32 {
	return host().MapGet(state, rec, k, buf[:cap(buf)])
}
func hostMapPut(state, rec int32, k, v []byte) { host().MapPut(state, rec, k, v) }
func hostMapDelete(state, rec int32, k []byte) { host().MapDelete(state, rec, k) }
func hostMapEntries(state, rec int32, buf []byte) int32 {
	return host().MapEntries(state, rec, buf[:cap(buf)])
}
func hostMapClear(state, rec int32)                 { host().MapClear(state, rec) }
func hostTimerRegister(rec, domain int32, ts int64) { host().TimerRegister(rec, domain, ts) }
func hostTimerDelete(rec, domain int32, ts int64)   { host().TimerDelete(rec, domain, ts) }
func hostCurrentWatermark() int64                   { return host().CurrentWatermark() }
func hostProcessingTime() int64                     { return host().ProcessingTime() }
