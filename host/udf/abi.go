package udf

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/floe-stream/floe/host/internal/wasmbin"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// hostFunc is one floe_v1 function: its Go body and Wasm signature.
type hostFunc struct {
	fn              func(in *Instance, stack []uint64)
	params, results []api.ValueType
}

var i64 = api.ValueTypeI64

// abiFunctions is the floe_v1 import module (sdk/ABI.md, "Host functions").
var abiFunctions map[string]hostFunc

func init() {
	abiFunctions = map[string]hostFunc{
		"emit":              {hEmit, []api.ValueType{i32, i32}, nil},
		"output_declare":    {hOutputDeclare, []api.ValueType{i32, i32}, []api.ValueType{i32}},
		"fail":              {hFail, []api.ValueType{i32, i32, i32}, nil},
		"log":               {hLog, []api.ValueType{i32, i32, i32}, nil},
		"state_declare":     {hStateDeclare, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}},
		"value_get":         {hValueGet, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}},
		"value_put":         {hValuePut, []api.ValueType{i32, i32, i32, i32}, nil},
		"value_delete":      {hValueDelete, []api.ValueType{i32, i32}, nil},
		"list_append":       {hListAppend, []api.ValueType{i32, i32, i32, i32}, nil},
		"list_get":          {hListGet, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}},
		"list_clear":        {hListClear, []api.ValueType{i32, i32}, nil},
		"map_get":           {hMapGet, []api.ValueType{i32, i32, i32, i32, i32, i32}, []api.ValueType{i32}},
		"map_put":           {hMapPut, []api.ValueType{i32, i32, i32, i32, i32, i32}, nil},
		"map_delete":        {hMapDelete, []api.ValueType{i32, i32, i32, i32}, nil},
		"map_entries":       {hMapEntries, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}},
		"map_clear":         {hMapClear, []api.ValueType{i32, i32}, nil},
		"timer_register":    {hTimerRegister, []api.ValueType{i32, i32, i64}, nil},
		"timer_delete":      {hTimerDelete, []api.ValueType{i32, i32, i64}, nil},
		"current_watermark": {hCurrentWatermark, nil, []api.ValueType{i64}},
		"processing_time":   {hProcessingTime, nil, []api.ValueType{i64}},
	}
}

// instanceKey finds the calling Instance in a call's context.
type instanceKey struct{}

// callContext is the context of one call into a guest. It answers the
// instance lookup itself, so host functions find their instance without
// walking a chain of contexts.
type callContext struct {
	context.Context
	in *Instance
}

func (c *callContext) Value(key any) any {
	if key == (instanceKey{}) {
		return c.in
	}
	return c.Context.Value(key)
}

// linkYield instantiates the host module that instrumented guests call out
// to (host/internal/wasmbin).
func linkYield(ctx context.Context, rt wazero.Runtime) error {
	_, err := rt.NewHostModuleBuilder(wasmbin.Module).NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
			in, ok := ctx.Value(instanceKey{}).(*Instance)
			if !ok {
				panic(errors.New(wasmbin.Module + " called outside a Floe call"))
			}
			stack[0] = uint64(in.yield(ctx))
		}), nil, []api.ValueType{api.ValueTypeI32}).
		Export(wasmbin.Func).
		Instantiate(ctx)
	return err
}

// linkABI instantiates the floe_v1 host module in rt.
func linkABI(ctx context.Context, rt wazero.Runtime) error {
	b := rt.NewHostModuleBuilder(ABIModule)
	for name, f := range abiFunctions {
		fn := f.fn
		b.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
				in, ok := ctx.Value(instanceKey{}).(*Instance)
				if !ok {
					panic(errors.New("floe_v1 called outside a Floe call"))
				}
				fn(in, stack)
			}), f.params, f.results).
			Export(name)
	}
	_, err := b.Instantiate(ctx)
	return err
}

// trap aborts the guest's call with err; wazero returns it from the export.
func trap(format string, args ...any) { panic(fmt.Errorf(format, args...)) }

// bytes returns a view of guest memory [ptr, ptr+n), trapping when out of
// range. The view is valid until the guest runs again.
func (in *Instance) bytes(ptr, n uint64) []byte {
	b, ok := in.mem.Read(uint32(ptr), uint32(n))
	if !ok {
		trap("guest passed memory [%d, %d) beyond its %d bytes", ptr, ptr+n, in.mem.Size())
	}
	return b
}

// give writes v to the guest buffer (buf, capacity) when it fits, and
// returns its length as the ABI's result.
func (in *Instance) give(v []byte, buf, capacity uint64) uint64 {
	if uint64(len(v)) <= uint64(uint32(capacity)) && len(v) > 0 {
		copy(in.bytes(buf, uint64(len(v))), v)
	}
	return uint64(uint32(len(v)))
}

const absent = uint64(0xffffffff) // -1 as an i32 result

func hEmit(in *Instance, s []uint64) {
	run := in.bytes(s[0], s[1])
	for off := 0; off < len(run); {
		if len(run)-off < 16 {
			trap("emit: truncated output record at byte %d", off)
		}
		port := binary.LittleEndian.Uint32(run[off:])
		n := int(binary.LittleEndian.Uint32(run[off+4:]))
		ts := int64(binary.LittleEndian.Uint64(run[off+8:]))
		off += 16
		if len(run)-off < n {
			trap("emit: output record of %d bytes overruns the run", n)
		}
		in.emit(port, run[off:off+n], ts)
		off += n
	}
}

func hOutputDeclare(in *Instance, s []uint64) {
	name := string(in.bytes(s[0], s[1]))
	s[0] = uint64(in.declareOutput(name))
}

func hFail(in *Instance, s []uint64) {
	in.failRec = int32(s[0])
	in.failMsg = message(in.bytes(s[1], s[2]))
	in.failed = true
}

func hLog(in *Instance, s []uint64) {
	in.logf(int32(s[0]), in.bytes(s[1], s[2]))
}

func hStateDeclare(in *Instance, s []uint64) {
	name := string(in.bytes(s[1], s[2]))
	id, err := in.declareState(StateKind(int32(s[0])), name, int32(s[3]))
	if err != nil {
		trap("state_declare %q: %v", name, err)
	}
	s[0] = uint64(id)
}

// scope returns the binding for a state id and the key group and key of the
// record rec.
func (in *Instance) scope(id64, rec uint64, want StateKind) (*stateBinding, uint16, []byte) {
	if in.statePoints {
		in.cfg.StatePoint()
	}
	// NB: an i32 argument is only the low 32 bits of its stack slot.
	id := uint32(id64)
	if id >= uint32(len(in.states)) {
		trap("unknown state id %d", int32(id))
	}
	st := &in.states[id]
	if st.info.Kind != want {
		trap("state %q is %s state, used as %s state", st.info.Name, st.info.Kind, want)
	}
	r := int(int32(rec))
	if in.cur == nil || r < 0 || r >= len(in.cur.Records) {
		trap("state %q used with record index %d outside the batch", st.info.Name, r)
	}
	if in.onBroadcast {
		trap("keyed state %q used by the function of the broadcast input, whose records have no key: it may use broadcast and operator state only", st.info.Name)
	}
	if !in.keyed || in.cfg.Keyed == nil {
		trap("keyed state %q used by a non-keyed operator: put a keyBy before it", st.info.Name)
	}
	k := &in.cur.Records[r]
	return st, k.KeyGroup, k.Key
}

// check traps on a storage error.
func check(err error) {
	if err != nil {
		trap("state: %v", err)
	}
}

func hValueGet(in *Instance, s []uint64) {
	st, kg, key := in.scope(s[0], s[1], KindValue)
	v, ok, err := st.value.Get(kg, key)
	check(err)
	if !ok {
		s[0] = absent
		return
	}
	s[0] = in.give(v, s[2], s[3])
}

func hValuePut(in *Instance, s []uint64) {
	st, kg, key := in.scope(s[0], s[1], KindValue)
	check(st.value.Put(kg, key, in.bytes(s[2], s[3])))
}

func hValueDelete(in *Instance, s []uint64) {
	st, kg, key := in.scope(s[0], s[1], KindValue)
	check(st.value.Delete(kg, key))
}

// opList returns the operator list behind a state id when it is one (kinds
// 4 and 5), whose calls ignore rec.
func (in *Instance) opList(id64 uint64) OperatorList {
	if id := uint32(id64); id < uint32(len(in.states)) {
		return in.states[id].op
	}
	return nil
}

func hListAppend(in *Instance, s []uint64) {
	if l := in.opList(s[0]); l != nil {
		check(l.Append(in.bytes(s[2], s[3])))
		return
	}
	st, kg, key := in.scope(s[0], s[1], KindList)
	check(st.list.Append(kg, key, in.bytes(s[2], s[3])))
}

func hListGet(in *Instance, s []uint64) {
	in.scratch = in.scratch[:0]
	collect := func(e []byte) error {
		in.scratch = binary.LittleEndian.AppendUint32(in.scratch, uint32(len(e)))
		in.scratch = append(in.scratch, e...)
		return nil
	}
	if l := in.opList(s[0]); l != nil {
		check(l.Get(collect))
	} else {
		st, kg, key := in.scope(s[0], s[1], KindList)
		check(st.list.Get(kg, key, collect))
	}
	if len(in.scratch) == 0 {
		s[0] = absent
		return
	}
	s[0] = in.give(in.scratch, s[2], s[3])
}

func hListClear(in *Instance, s []uint64) {
	if l := in.opList(s[0]); l != nil {
		check(l.Clear())
		return
	}
	st, kg, key := in.scope(s[0], s[1], KindList)
	check(st.list.Clear(kg, key))
}

func hMapGet(in *Instance, s []uint64) {
	if m := in.broadcastMap(s[0]); m != nil {
		in.bMapGet(m, s)
		return
	}
	st, kg, key := in.scope(s[0], s[1], KindMap)
	v, ok, err := st.mp.Get(kg, key, in.bytes(s[2], s[3]))
	check(err)
	if !ok {
		s[0] = absent
		return
	}
	s[0] = in.give(v, s[4], s[5])
}

func hMapPut(in *Instance, s []uint64) {
	if m := in.broadcastMap(s[0]); m != nil {
		in.bMapPut(m, s)
		return
	}
	st, kg, key := in.scope(s[0], s[1], KindMap)
	check(st.mp.Put(kg, key, in.bytes(s[2], s[3]), in.bytes(s[4], s[5])))
}

func hMapDelete(in *Instance, s []uint64) {
	if m := in.broadcastMap(s[0]); m != nil {
		in.bMapDelete(m, s)
		return
	}
	st, kg, key := in.scope(s[0], s[1], KindMap)
	check(st.mp.Delete(kg, key, in.bytes(s[2], s[3])))
}

func hMapEntries(in *Instance, s []uint64) {
	if m := in.broadcastMap(s[0]); m != nil {
		in.bMapEntries(m, s)
		return
	}
	st, kg, key := in.scope(s[0], s[1], KindMap)
	in.scratch = in.scratch[:0]
	check(st.mp.Iter(kg, key, func(k, v []byte) error {
		in.scratch = binary.LittleEndian.AppendUint32(in.scratch, uint32(len(k)))
		in.scratch = append(in.scratch, k...)
		in.scratch = binary.LittleEndian.AppendUint32(in.scratch, uint32(len(v)))
		in.scratch = append(in.scratch, v...)
		return nil
	}))
	if len(in.scratch) == 0 {
		s[0] = absent
		return
	}
	s[0] = in.give(in.scratch, s[2], s[3])
}

func hMapClear(in *Instance, s []uint64) {
	if m := in.broadcastMap(s[0]); m != nil {
		in.bMapClear(m, s)
		return
	}
	st, kg, key := in.scope(s[0], s[1], KindMap)
	check(st.mp.Clear(kg, key))
}

// timerScope returns the key group and key of record rec for a timer call,
// and the domain, trapping where timers cannot be used.
func (in *Instance) timerScope(rec, domain uint64) (uint16, []byte, TimeDomain) {
	d := TimeDomain(int32(domain))
	if d != EventTime && d != ProcessingTime {
		trap("unknown time domain %d (0 event time, 1 processing time)", int32(domain))
	}
	if in.onBroadcast {
		trap("timers used by the function of the broadcast input, whose records have no key")
	}
	if !in.keyed || in.cfg.Timers == nil {
		trap("timers used by a non-keyed operator: put a keyBy before it")
	}
	r := int(int32(rec))
	if in.cur == nil || r < 0 || r >= len(in.cur.Records) {
		trap("timer used with record index %d outside the batch", r)
	}
	k := &in.cur.Records[r]
	return k.KeyGroup, k.Key, d
}

func hTimerRegister(in *Instance, s []uint64) {
	kg, key, d := in.timerScope(s[0], s[1])
	if in.onTimer == nil {
		trap("timer registered, but the module exports no floe_on_timer to call")
	}
	check(in.cfg.Timers.Register(kg, key, d, int64(s[2])))
}

func hTimerDelete(in *Instance, s []uint64) {
	kg, key, d := in.timerScope(s[0], s[1])
	check(in.cfg.Timers.Delete(kg, key, d, int64(s[2])))
}

func hCurrentWatermark(in *Instance, s []uint64) { s[0] = uint64(in.watermark) }

func hProcessingTime(in *Instance, s []uint64) { s[0] = uint64(in.now().UnixMilli()) }
