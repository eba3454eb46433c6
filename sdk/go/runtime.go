package floe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unsafe"
)

// outputFlushSize is how much output the SDK buffers before handing it to
// the host in the middle of a batch.
const outputFlushSize = 256 << 10

// operator is the module's single instance state: the host instantiates a
// module once per operator subtask, so one set of globals is one operator.
type operator struct {
	in   []byte // the buffer the host writes into (floe_alloc)
	out  []byte // buffered output records
	fn   function
	name string
	// fn2 and name2 are the function of a two-input operator's second
	// input (floe.function2); name2 is "" for every other operator.
	fn2     function
	name2   string
	params  Params
	ports   map[string]uint32
	ctx     Context
	scratch []byte   // state values read from the host
	recs    []Record // an aggregate's records of one group (window.go)
	accBuf  []byte   // an aggregate's new accumulator (window.go)
	opened  bool
}

var op operator

// grow makes the input buffer at least size bytes and returns it.
func (o *operator) grow(size int) []byte {
	if cap(o.in) < size {
		o.in = make([]byte, size)
	}
	o.in = o.in[:cap(o.in)]
	return o.in
}

// open selects the function named by the parameters, declares state and runs
// the OnOpen hooks. It returns 0 or 1 as floe_open does.
func (o *operator) open(n int) int32 {
	p, err := decodeParams(o.in[:n])
	if err != nil {
		return failWith(-1, err)
	}
	name := p["floe.function"]
	f, ok := registry[name]
	if !ok {
		return failWith(-1, fmt.Errorf("no function %q in this module (registered: %v)", name, registeredNames()))
	}
	o.fn, o.name, o.params, o.ports = f, name, p, map[string]uint32{}
	o.ctx.params = p
	if o.name2 = p["floe.function2"]; o.name2 != "" {
		if o.fn2, ok = registry[o.name2]; !ok {
			return failWith(-1, fmt.Errorf("no function %q in this module (registered: %v)", o.name2, registeredNames()))
		}
		if err := twoInputs(o.name, f, o.name2, o.fn2); err != nil {
			return failWith(-1, err)
		}
	}
	if err := declareStates(); err != nil {
		return failWith(-1, err)
	}
	for _, h := range openHooks {
		if err := callSafely(func() error { return h(p) }); err != nil {
			return failWith(-1, err)
		}
	}
	o.opened = true
	return 0
}

func registeredNames() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	return names
}

// twoInputs checks that the functions of a two-input operator are record
// functions, which floe_process and floe_process2 call.
func twoInputs(name1 string, f1 function, name2 string, f2 function) error {
	for _, f := range []struct {
		name string
		fn   function
	}{{name1, f1}, {name2, f2}} {
		if f.fn.kind == kindAggregate || f.fn.kind == kindWindow {
			return fmt.Errorf("function %q is a window function; a coProcess runs record functions (floe.Process)", f.name)
		}
	}
	return nil
}

// process runs the selected function over a batch of count records in the
// input buffer's first n bytes.
func (o *operator) process(n, count int) int32 {
	return o.processWith(o.fn, n, count)
}

// process2 runs the function of a two-input operator's second input over
// a batch, as process runs the first's.
func (o *operator) process2(n, count int) int32 {
	if o.name2 == "" {
		return failWith(-1, fmt.Errorf("floe_process2 called, but function %q is not opened as a two-input operator (no floe.function2)", o.name))
	}
	return o.processWith(o.fn2, n, count)
}

// processWith runs fn over a batch of count records in the input buffer's
// first n bytes.
func (o *operator) processWith(fn function, n, count int) int32 {
	err := o.run(fn, o.in[:n], count)
	o.flush()
	if err != nil {
		return failWith(o.ctx.rec, err)
	}
	return 0
}

// run calls the function on each record. A panic stops the batch and
// becomes the error of the record being processed; one deferred recover per
// batch keeps the per-record path cheap.
//
// NB: in Wasm every Go call costs far more than natively (arguments and
// results pass through memory, and the callee's dispatch loop passes the
// host's fuel check), so the loop decodes records itself and calls a map
// function and emits its output without calls in between.
func (o *operator) run(fn function, buf []byte, count int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = recovered(r)
		}
	}()
	mapFn, appendFn := fn.mapFn, fn.appendFn
	if k := fn.kind; k != kindMap && k != kindKeySelector {
		mapFn, appendFn = nil, nil
	}
	off := 0
	for i := range count {
		if len(buf)-off < inputHeader {
			return errShortBuffer
		}
		h := buf[off : off+inputHeader]
		kl := int(binary.LittleEndian.Uint32(h))
		vl := int(binary.LittleEndian.Uint32(h[4:]))
		ts := int64(binary.LittleEndian.Uint64(h[8:]))
		start := off + inputHeader
		if kl < 0 || vl < 0 || len(buf)-start < kl+vl {
			return errShortBuffer
		}
		off = start + kl + vl
		o.ctx.rec, o.ctx.key, o.ctx.ts = int32(i), buf[start:start+kl:start+kl], ts
		value := buf[start+kl : off : off]
		if appendFn != nil {
			if err := o.appendOut(appendFn, value); err != nil {
				return err
			}
			continue
		}
		if mapFn == nil {
			if err := o.call(fn, value); err != nil {
				return err
			}
			continue
		}
		v, err := mapFn(value)
		if err != nil {
			return err
		}
		o.emit(0, v)
	}
	return nil
}

// call applies fn, of any kind but map, to one record.
func (o *operator) call(fn function, value []byte) error {
	switch fn.kind {
	case kindMap, kindKeySelector:
		v, err := fn.mapFn(value)
		if err != nil {
			return err
		}
		o.emit(0, v)
	case kindFilter:
		keep, err := fn.filter(value)
		if err != nil {
			return err
		}
		if keep {
			o.emit(0, value)
		}
	case kindFlatMap:
		return fn.flatMap(value, o)
	case kindProcess:
		return fn.process(&o.ctx, value, o)
	}
	return nil
}

// Emit implements Emitter for the running operator.
func (o *operator) Emit(value []byte) { o.emit(0, value) }

// EmitTo implements Emitter for the running operator.
func (o *operator) EmitTo(output string, value []byte) {
	port, ok := o.ports[output]
	if !ok {
		port = uint32(hostOutputDeclare(output))
		o.ports[output] = port
	}
	o.emit(port, value)
}

// emit buffers one output record of the record being processed, and hands
// the buffer to the host once it holds outputFlushSize bytes. It writes the
// header in place rather than appending field by field: in Wasm each append
// is a call.
func (o *operator) emit(port uint32, value []byte) {
	n := len(o.out)
	end := n + outputHeader + len(value)
	if end > cap(o.out) {
		o.out = slices.Grow(o.out, end-n)
	}
	b := o.out[:end]
	binary.LittleEndian.PutUint32(b[n:], port)
	binary.LittleEndian.PutUint32(b[n+4:], uint32(len(value)))
	binary.LittleEndian.PutUint64(b[n+8:], uint64(o.ctx.ts))
	copy(b[n+outputHeader:], value)
	o.out = b
	if end >= outputFlushSize {
		o.flush()
	}
}

// appendOut calls a MapAppend function with the free space of the output
// buffer after one record header as dst, and emits what it returns: in
// place when it wrote there, else by a copy.
func (o *operator) appendOut(fn func(dst, rec []byte) ([]byte, error), value []byte) error {
	n := len(o.out)
	if room := outputHeader + 2*len(value) + 64; cap(o.out)-n < room {
		o.out = slices.Grow(o.out, room)
	}
	dst := o.out[n+outputHeader : n+outputHeader]
	v, err := fn(dst, value)
	if err != nil {
		return err
	}
	if unsafe.SliceData(v) != unsafe.SliceData(dst) || cap(v) != cap(dst) {
		o.emit(0, v)
		return nil
	}
	end := n + outputHeader + len(v)
	b := o.out[:end]
	binary.LittleEndian.PutUint64(b[n:], uint64(len(v))<<32) // port 0, the length
	binary.LittleEndian.PutUint64(b[n+8:], uint64(o.ctx.ts))
	o.out = b
	if end >= outputFlushSize {
		o.flush()
	}
	return nil
}

// flush hands buffered output to the host.
func (o *operator) flush() {
	if len(o.out) > 0 {
		hostEmit(o.out)
		o.out = o.out[:0]
	}
}

// close runs the OnClose hooks.
func (o *operator) close() int32 {
	var errs []error
	for _, h := range closeHooks {
		errs = append(errs, callSafely(h))
	}
	if err := errors.Join(errs...); err != nil {
		return failWith(-1, err)
	}
	return 0
}

// callSafely runs fn, turning a panic into an error.
func callSafely(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = recovered(r)
		}
	}()
	return fn()
}

// recovered turns a recovered panic into the call's error: the SDK's own
// state errors as they are, anything else prefixed "panic: ".
func recovered(r any) error {
	if se, ok := r.(stateError); ok {
		return se
	}
	return fmt.Errorf("panic: %v", r)
}

// failWith reports err to the host for record rec (-1 for none) and returns
// the failure status.
func failWith(rec int32, err error) int32 {
	hostFail(rec, err.Error())
	return 1
}

// kindNames are the kinds as the function table names them (sdk/ABI.md,
// "Function table").
var kindNames = [...]string{
	kindMap: "map", kindFilter: "filter", kindFlatMap: "flatMap", kindProcess: "process",
	kindKeySelector: "keySelector", kindAggregate: "aggregate", kindWindow: "processWindow",
}

// functionTable lays out the registered functions and their kinds, sorted
// by name, for floe_functions: u32 count, then count × {u32 name_len, name,
// u32 kind_len, kind}.
func functionTable() []byte {
	names := registeredNames()
	slices.Sort(names)
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(names)))
	for _, n := range names {
		k := kindNames[registry[n].kind]
		b = binary.LittleEndian.AppendUint32(b, uint32(len(n)))
		b = append(b, n...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(k)))
		b = append(b, k...)
	}
	return b
}
