package wasmbin

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
)

// The import every instrumented module makes: a function of type () -> i32
// that returns the next fuel, or panics to stop the call.
const (
	Module = "floe_interrupt"
	Func   = "yield"
)

// DefaultFuel is a fuel that has a guest call out a few times per
// millisecond of tight looping, at a cost well under 1% of its time.
const DefaultFuel = 10000

// Section ids.
const (
	secCustom    = 0
	secType      = 1
	secMemory    = 5
	secImport    = 2
	secFunction  = 3
	secTable     = 4
	secGlobal    = 6
	secExport    = 7
	secStart     = 8
	secElement   = 9
	secCode      = 10
	secData      = 11
	secTag       = 13
	secDataCount = 12
)

// rank orders the known sections as the binary format requires.
var rank = map[byte]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}

type section struct {
	id   byte
	data []byte
}

// rewriter holds what the rewrite of each section needs to know.
type rewriter struct {
	importedFns uint32 // function imports before ours
	types       uint32 // types before ours
	globals     uint32 // globals before ours, imported and defined
	fuel        uint32
	check       []byte // the code of one fuel check
}

// reader returns a reader of b that checks type indices.
func (rw *rewriter) reader(b []byte) *reader { return &reader{b: b, types: rw.types} }

// shift renumbers a function index for the new import.
func (rw *rewriter) shift(fn uint32) uint32 {
	if fn >= rw.importedFns {
		return fn + 1
	}
	return fn
}

// Instrument returns a copy of the module wasm with fuel checks (see the
// package documentation); wasm is not modified. fuel, 1 to 2^31-1, is how
// many checks pass until the first call of the import; the import returns
// how many pass until the next. Instrument leaves validation to the
// runtime: it fails on input it cannot follow, and what it returns from an
// invalid module is invalid too.
func Instrument(wasm []byte, fuel uint32) ([]byte, error) {
	if fuel == 0 || fuel > 1<<31-1 {
		return nil, fmt.Errorf("wasmbin: fuel %d out of range", fuel)
	}
	if len(wasm) < 8 || !bytes.Equal(wasm[:8], []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, errors.New("wasmbin: not a WebAssembly 1.0 binary module")
	}
	secs, err := split(wasm[8:])
	if err != nil {
		return nil, err
	}
	rw := &rewriter{fuel: fuel}
	if err := rw.count(secs); err != nil {
		return nil, err
	}
	rw.check = rw.fuelCheck()
	secs = ensure(secs, secType, secImport, secGlobal)
	out := append(make([]byte, 0, len(wasm)+len(wasm)/8), wasm[:8]...)
	for _, s := range secs {
		data, keep, err := rw.section(s)
		if err != nil {
			return nil, fmt.Errorf("wasmbin: section %d: %w", s.id, err)
		}
		if keep {
			out = append(out, s.id)
			out = append(appendU32(out, uint32(len(data))), data...)
		}
	}
	return out, nil
}

// split cuts a module's contents into sections. On malformed input it
// returns the sections before the fault with the error.
func split(b []byte) ([]section, error) {
	r := reader{b: b, types: math.MaxUint32}
	var secs []section
	for !r.done() {
		id := r.byte()
		data := r.bytes(int(r.u32()))
		secs = append(secs, section{id, data})
	}
	if r.err != nil {
		return secs, fmt.Errorf("wasmbin: sections: %w", r.err)
	}
	return secs, nil
}

// ensure adds an empty section of each id that secs lacks, in its place.
func ensure(secs []section, ids ...byte) []section {
	for _, id := range ids {
		at := len(secs)
		for i, s := range secs {
			if s.id == id {
				at = -1
				break
			}
			if s.id != secCustom && rank[s.id] > rank[id] {
				at = i
				break
			}
		}
		if at >= 0 {
			secs = append(secs[:at], append([]section{{id, []byte{0}}}, secs[at:]...)...)
		}
	}
	return secs
}

// count reads the numbers of types, function imports and globals.
func (rw *rewriter) count(secs []section) error {
	for _, s := range secs {
		r := rw.reader(s.data)
		switch s.id {
		case secType:
			rw.types = r.u32()
		case secImport:
			for n := r.u32(); n > 0 && r.err == nil; n-- {
				r.name()
				r.name()
				switch kind := r.byte(); kind {
				case 0:
					r.typeIndex(r.u32())
					rw.importedFns++
				case 1:
					r.valType()
					r.limits()
				case 2:
					r.limits()
				case 3:
					r.valType()
					r.byte()
					rw.globals++
				case 4:
					r.byte()
					r.u32()
				default:
					r.fail(fmt.Errorf("unknown import kind %d", kind))
				}
			}
		case secGlobal:
			rw.globals += r.u32()
		}
		if r.err != nil {
			return fmt.Errorf("wasmbin: section %d: %w", s.id, r.err)
		}
	}
	return nil
}

// limits skips a table's or memory's limits.
func (r *reader) limits() {
	flags := r.byte()
	r.skipLEB(10)
	if flags&1 != 0 {
		r.skipLEB(10)
	}
}

// fuelCheck is the code inserted at each check:
//
//	global.get $fuel
//	i32.eqz
//	if
//	  call $yield
//	  global.set $fuel
//	end
//	global.get $fuel
//	i32.const 1
//	i32.sub
//	global.set $fuel
func (rw *rewriter) fuelCheck() []byte {
	g := appendU32(nil, rw.globals)
	var b []byte
	b = append(append(append(b, 0x23), g...), 0x45, 0x04, 0x40, opCall)
	b = appendU32(b, rw.importedFns)
	b = append(append(append(b, 0x24), g...), opEnd)
	b = append(append(append(b, 0x23), g...), 0x41, 0x01, 0x6b)
	return append(append(b, 0x24), g...)
}

// section returns the rewritten contents of s, and whether to keep it.
func (rw *rewriter) section(s section) ([]byte, bool, error) {
	r := rw.reader(s.data)
	var out []byte
	switch s.id {
	case secCustom:
		return rw.custom(s.data)
	case secType:
		out = appendU32(nil, r.u32()+1)
		out = append(append(out, r.b[r.pos:]...), 0x60, 0, 1, 0x7f)
		r.pos = len(r.b)
	case secImport:
		out = appendU32(nil, r.u32()+1)
		out = append(out, r.b[r.pos:]...)
		out = appendName(appendName(out, Module), Func)
		out = appendU32(append(out, 0), rw.types)
		r.pos = len(r.b)
	case secTable:
		out = rw.tables(r)
	case secGlobal:
		out = rw.globalSection(r)
	case secExport:
		out = rw.exports(r)
	case secFunction:
		for n := r.u32(); n > 0 && r.err == nil; n-- {
			r.typeIndex(r.u32())
		}
		return s.data, true, r.err
	case secStart:
		out = appendU32(nil, rw.shift(r.u32()))
	case secElement:
		out = rw.elements(r)
	case secCode:
		out = appendU32(nil, r.u32())
		for !r.done() {
			src := r.bytes(int(r.u32()))
			body, err := rw.body(nil, src)
			if err != nil {
				return nil, false, fmt.Errorf("function body at offset %d: %w", r.pos-len(src), err)
			}
			out = append(appendU32(out, uint32(len(body))), body...)
		}
	default:
		return s.data, true, nil
	}
	if r.err == nil && r.pos != len(r.b) {
		r.err = fmt.Errorf("%d bytes after its contents", len(r.b)-r.pos)
	}
	return out, true, r.err
}

// tables rewrites the table section: a table may have an initial value,
// which may name a function.
func (rw *rewriter) tables(r *reader) []byte {
	n := r.u32()
	out := appendU32(nil, n)
	for ; n > 0 && !r.done(); n-- {
		start := r.pos
		if r.b[r.pos] == 0x40 { // 0x40 0x00 tabletype expr
			r.bytes(2)
			r.valType()
			r.limits()
			out = rw.constExpr(append(out, r.b[start:r.pos]...), r)
			continue
		}
		r.valType()
		r.limits()
		out = append(out, r.b[start:r.pos]...)
	}
	return out
}

// globalSection rewrites the global section and adds the fuel.
func (rw *rewriter) globalSection(r *reader) []byte {
	n := r.u32()
	out := appendU32(nil, n+1)
	for ; n > 0 && !r.done(); n-- {
		start := r.pos
		r.valType()
		r.byte()
		out = rw.constExpr(append(out, r.b[start:r.pos]...), r)
	}
	out = append(out, 0x7f, 0x01, 0x41) // mutable i32, i32.const
	return append(appendS32(out, int32(rw.fuel-1)), opEnd)
}

// exports rewrites the export section.
func (rw *rewriter) exports(r *reader) []byte {
	n := r.u32()
	out := appendU32(nil, n)
	for ; n > 0 && !r.done(); n-- {
		out = appendName(out, r.name())
		kind, idx := r.byte(), r.u32()
		switch kind {
		case 0:
			idx = rw.shift(idx)
		case 3:
			rw.exists(r, globalIndex, idx)
		}
		out = appendU32(append(out, kind), idx)
	}
	return out
}

// elements rewrites the element section's function indices and
// expressions.
func (rw *rewriter) elements(r *reader) []byte {
	n := r.u32()
	out := appendU32(nil, n)
	for ; n > 0 && !r.done(); n-- {
		flags := r.u32()
		out = appendU32(out, flags)
		if flags > 7 {
			r.fail(fmt.Errorf("element segment flags %d", flags))
			break
		}
		if flags&3 == 2 { // explicit table index
			out = appendU32(out, r.u32())
		}
		if flags&1 == 0 { // active: an offset expression
			out = rw.constExpr(out, r)
		}
		if flags&3 != 0 { // an element kind or reference type
			start := r.pos
			r.valType()
			out = append(out, r.b[start:r.pos]...)
		}
		count := r.u32()
		out = appendU32(out, count)
		for ; count > 0 && !r.done(); count-- {
			if flags&4 != 0 {
				out = rw.constExpr(out, r)
			} else {
				out = appendU32(out, rw.shift(r.u32()))
			}
		}
	}
	return out
}

// custom rewrites the name section's function indices and drops the
// sections that describe code offsets, which instrumentation moves.
func (rw *rewriter) custom(data []byte) ([]byte, bool, error) {
	r := rw.reader(data)
	name := r.name()
	if r.err != nil {
		return nil, false, r.err
	}
	switch {
	case strings.HasPrefix(name, ".debug_"), name == "sourceMappingURL":
		return nil, false, nil
	case name != "name":
		return data, true, nil
	}
	out := append([]byte(nil), data[:r.pos]...)
	for !r.done() {
		id := r.byte()
		sub := rw.reader(r.bytes(int(r.u32())))
		var body []byte
		switch id {
		case 1: // function names
			body = rw.nameMap(sub, false)
		case 2, 3: // local and label names, by function
			body = rw.nameMap(sub, true)
		default:
			body = sub.b
		}
		if sub.err != nil {
			// Names are optional and only for people: drop what we
			// cannot follow rather than refuse the module.
			return nil, false, nil
		}
		out = append(appendU32(append(out, id), uint32(len(body))), body...)
	}
	if r.err != nil {
		return nil, false, nil
	}
	return out, true, nil
}

// nameMap rewrites a map from function index to a name, or to a map from
// index to name when nested.
func (rw *rewriter) nameMap(r *reader, nested bool) []byte {
	n := r.u32()
	out := appendU32(nil, n)
	for ; n > 0 && !r.done(); n-- {
		out = appendU32(out, rw.shift(r.u32()))
		if !nested {
			out = appendName(out, r.name())
			continue
		}
		m := r.u32()
		out = appendU32(out, m)
		for ; m > 0 && !r.done(); m-- {
			out = appendName(appendU32(out, r.u32()), r.name())
		}
	}
	return out
}

// appendS32 appends v as signed LEB128.
func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
