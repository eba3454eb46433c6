//go:build wasip1

package floe

import "unsafe"

// The module's exports (sdk/ABI.md, "Guest exports").

//go:wasmexport floe_alloc
func floeAlloc(size int32) int32 { return ptr(op.grow(int(size))) }

//go:wasmexport floe_open
func floeOpen(n int32) int32 { return op.open(int(n)) }

//go:wasmexport floe_process
func floeProcess(n, count int32) int32 { return op.process(int(n), int(count)) }

//go:wasmexport floe_process2
func floeProcess2(n, count int32) int32 { return op.process2(int(n), int(count)) }

//go:wasmexport floe_close
func floeClose() int32 { return op.close() }

//go:wasmexport floe_window
func floeWindow(opcode, n int32) int32 { return op.window(opcode, int(n)) }

//go:wasmexport floe_on_timer
func floeOnTimer(domain int32, ts int64, keyLen int32) int32 {
	return op.onTimer(TimeDomain(domain), ts, int(keyLen))
}

// table keeps the function table alive for the host to read.
var table []byte

//go:wasmexport floe_functions
func floeFunctions() int64 {
	table = functionTable()
	return int64(uint32(ptr(table)))<<32 | int64(len(table))
}

// ptr returns the address of b's first byte in linear memory.
func ptr(b []byte) int32 {
	if cap(b) == 0 {
		return 0
	}
	return int32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

// The host's functions (sdk/ABI.md, "Host functions").

//go:wasmimport floe_v1 emit
func abiEmit(p unsafe.Pointer, n int32)

//go:wasmimport floe_v1 output_declare
func abiOutputDeclare(p unsafe.Pointer, n int32) int32

//go:wasmimport floe_v1 fail
func abiFail(rec int32, p unsafe.Pointer, n int32)

//go:wasmimport floe_v1 state_declare
func abiStateDeclare(kind int32, p unsafe.Pointer, n int32, flags int32) int32

//go:wasmimport floe_v1 value_get
func abiValueGet(state, rec int32, buf unsafe.Pointer, capacity int32) int32

//go:wasmimport floe_v1 value_put
func abiValuePut(state, rec int32, p unsafe.Pointer, n int32)

//go:wasmimport floe_v1 value_delete
func abiValueDelete(state, rec int32)

//go:wasmimport floe_v1 timer_register
func abiTimerRegister(rec, domain int32, ts int64)

//go:wasmimport floe_v1 timer_delete
func abiTimerDelete(rec, domain int32, ts int64)

//go:wasmimport floe_v1 current_watermark
func abiCurrentWatermark() int64

//go:wasmimport floe_v1 processing_time
func abiProcessingTime() int64

func hostTimerRegister(rec, domain int32, ts int64) { abiTimerRegister(rec, domain, ts) }
func hostTimerDelete(rec, domain int32, ts int64)   { abiTimerDelete(rec, domain, ts) }
func hostCurrentWatermark() int64                   { return abiCurrentWatermark() }
func hostProcessingTime() int64                     { return abiProcessingTime() }

//go:wasmimport floe_v1 list_append
func abiListAppend(state, rec int32, p unsafe.Pointer, n int32)

//go:wasmimport floe_v1 list_get
func abiListGet(state, rec int32, buf unsafe.Pointer, capacity int32) int32

//go:wasmimport floe_v1 list_clear
func abiListClear(state, rec int32)

//go:wasmimport floe_v1 map_get
func abiMapGet(state, rec int32, k unsafe.Pointer, kn int32, buf unsafe.Pointer, capacity int32) int32

//go:wasmimport floe_v1 map_put
func abiMapPut(state, rec int32, k unsafe.Pointer, kn int32, v unsafe.Pointer, vn int32)

//go:wasmimport floe_v1 map_delete
func abiMapDelete(state, rec int32, k unsafe.Pointer, kn int32)

//go:wasmimport floe_v1 map_entries
func abiMapEntries(state, rec int32, buf unsafe.Pointer, capacity int32) int32

//go:wasmimport floe_v1 map_clear
func abiMapClear(state, rec int32)

// data returns the pointer and length the ABI takes for b.
func data(b []byte) (unsafe.Pointer, int32) {
	return unsafe.Pointer(unsafe.SliceData(b)), int32(len(b))
}

func str(s string) (unsafe.Pointer, int32) {
	return unsafe.Pointer(unsafe.StringData(s)), int32(len(s))
}

func hostEmit(b []byte) { abiEmit(data(b)) }

func hostOutputDeclare(name string) int32 { p, n := str(name); return abiOutputDeclare(p, n) }

func hostFail(rec int32, msg string) { p, n := str(msg); abiFail(rec, p, n) }

func hostStateDeclare(kind int32, name string, flags int32) int32 {
	p, n := str(name)
	return abiStateDeclare(kind, p, n, flags)
}

func hostValueGet(state, rec int32, buf []byte) int32 {
	p, n := data(buf[:cap(buf)])
	return abiValueGet(state, rec, p, n)
}

func hostValuePut(state, rec int32, v []byte) { p, n := data(v); abiValuePut(state, rec, p, n) }

func hostValueDelete(state, rec int32) { abiValueDelete(state, rec) }

func hostListAppend(state, rec int32, v []byte) { p, n := data(v); abiListAppend(state, rec, p, n) }

func hostListGet(state, rec int32, buf []byte) int32 {
	p, n := data(buf[:cap(buf)])
	return abiListGet(state, rec, p, n)
}

func hostListClear(state, rec int32) { abiListClear(state, rec) }

func hostMapGet(state, rec int32, k, buf []byte) int32 {
	kp, kn := data(k)
	p, n := data(buf[:cap(buf)])
	return abiMapGet(state, rec, kp, kn, p, n)
}

func hostMapPut(state, rec int32, k, v []byte) {
	kp, kn := data(k)
	vp, vn := data(v)
	abiMapPut(state, rec, kp, kn, vp, vn)
}

func hostMapDelete(state, rec int32, k []byte) { kp, kn := data(k); abiMapDelete(state, rec, kp, kn) }

func hostMapEntries(state, rec int32, buf []byte) int32 {
	p, n := data(buf[:cap(buf)])
	return abiMapEntries(state, rec, p, n)
}

func hostMapClear(state, rec int32) { abiMapClear(state, rec) }
