package wasmbin

import (
	"bytes"
	"errors"
	"fmt"
	"math"
)

// LimitTables returns a copy of wasm whose tables can hold at most max
// entries together, however the module grows them: each table defined in
// the table section gets a maximum of its minimum plus an equal share of
// what the minimums leave, or the maximum it declares when that is lower.
// table.grow beyond a table's maximum fails (returns -1), as the
// specification says, so a guest cannot take host memory with tables. A
// module whose tables' minimums add up to more than max is refused with a
// *LimitError. wasm is not modified; a module without tables comes back
// as it is.
//
// NB: imported tables are not limited: an operator's imports come from
// host modules that export no tables, so such a module cannot be
// instantiated.
func LimitTables(wasm []byte, max uint32) ([]byte, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:8], []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, errors.New("wasmbin: not a WebAssembly 1.0 binary module")
	}
	secs, err := split(wasm[8:])
	if err != nil {
		return nil, err
	}
	at := -1
	for i, s := range secs {
		if s.id == secTable {
			at = i
		}
	}
	if at < 0 {
		return wasm, nil
	}
	data, err := limitTables(secs[at].data, max)
	if err != nil {
		return nil, err
	}
	out := append(make([]byte, 0, len(wasm)+16), wasm[:8]...)
	for i, s := range secs {
		if i == at {
			s.data = data
		}
		out = append(appendU32(append(out, s.id), uint32(len(s.data))), s.data...)
	}
	return out, nil
}

// table is one entry of the table section, cut around its limits.
type table struct {
	head     []byte // what comes before the limits: prefix and element type
	min, max uint64 // max is math.MaxUint32 when the table declares none
	tail     []byte // the initial value's expression, if any
}

// limitTables rewrites the contents of a table section.
func limitTables(data []byte, max uint32) ([]byte, error) {
	r := &reader{b: data, types: math.MaxUint32}
	tables, err := readTables(r)
	if err != nil {
		return nil, fmt.Errorf("wasmbin: table section: %w", err)
	}
	var sum uint64
	for _, t := range tables {
		sum += t.min
	}
	if sum > uint64(max) {
		return nil, &LimitError{Section: "table", What: "table entries", Count: sum, Limit: uint64(max)}
	}
	share := uint64(0)
	if len(tables) > 0 {
		share = (uint64(max) - sum) / uint64(len(tables))
	}
	out := appendU32(nil, uint32(len(tables)))
	for _, t := range tables {
		out = append(out, t.head...)
		out = appendU32(append(out, 1), uint32(t.min))
		out = appendU32(out, uint32(min(t.max, t.min+share)))
		out = append(out, t.tail...)
	}
	return out, nil
}

func readTables(r *reader) ([]table, error) {
	n := r.u32()
	var tables []table
	for ; n > 0 && !r.done(); n-- {
		var t table
		start := r.pos
		init := r.b[r.pos] == 0x40 // 0x40 0x00 tabletype expr
		if init {
			r.bytes(2)
		}
		r.valType()
		t.head = r.b[start:r.pos]
		flags := r.byte()
		if flags > 1 {
			r.fail(fmt.Errorf("table limits with flags %#x", flags))
		}
		t.min, t.max = uint64(r.u32()), math.MaxUint32
		if flags == 1 {
			t.max = uint64(r.u32())
		}
		if init {
			start = r.pos
			skipExpr(r)
			t.tail = r.b[start:r.pos]
		}
		tables = append(tables, t)
	}
	if r.err == nil && (n > 0 || r.pos != len(r.b)) {
		r.fail(errors.New("the count does not match the contents"))
	}
	return tables, r.err
}
