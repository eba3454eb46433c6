package wasmbin

import "fmt"

// Opcodes this package acts on.
const (
	opLoop       = 0x03
	opEnd        = 0x0b
	opCall       = 0x10
	opReturnCall = 0x12
	opGlobalGet  = 0x23
	opGlobalSet  = 0x24
	opRefFunc    = 0xd2
)

// makesCall reports whether op transfers control to another function.
func makesCall(op byte) bool { return op >= 0x10 && op <= 0x15 }

// index is the kind of index an instruction names.
type index byte

const (
	noIndex index = iota
	funcIndex
	globalIndex
)

// instr decodes the instruction at r.pos and moves r past it. It returns the
// opcode (the prefix byte for prefixed instructions) and the function or
// global index it names, if any, for the caller to renumber or check. (Other
// instructions name at most indices this package does not change; type
// indices the reader checks itself.)
func instr(r *reader) (op byte, idx uint32, kind index) {
	op = r.byte()
	switch {
	case op == opCall || op == opReturnCall || op == opRefFunc:
		return op, r.u32(), funcIndex
	case op == opGlobalGet || op == opGlobalSet:
		return op, r.u32(), globalIndex
	case op <= 0x01, op == 0x05, op == 0x0a, op == opEnd, op == 0x0f, op == 0x19,
		op == 0x1a, op == 0x1b, op == 0xd1, op == 0xd3, op >= 0x45 && op <= 0xc4:
		// No immediates.
	case op >= 0x02 && op <= 0x04, op == 0x06: // block, loop, if, try
		r.blockType()
	case op == 0x07, op == 0x08, op == 0x09, op == 0x0c, op == 0x0d, op == 0x18,
		op == 0xd4, op == 0xd6, op >= 0x20 && op <= 0x22, op == 0x25, op == 0x26, op == 0x3f, op == 0x40:
		r.u32() // a tag, label, local, table or memory index
	case op == 0x0e: // br_table
		for n := r.u32(); n > 0 && r.err == nil; n-- {
			r.u32()
		}
		r.u32()
	case op == 0x11, op == 0x13: // call_indirect, return_call_indirect
		r.typeIndex(r.u32())
		r.u32()
	case op == 0x14, op == 0x15: // call_ref, return_call_ref
		r.typeIndex(r.u32())
	case op == 0x1c: // select t*
		for n := r.u32(); n > 0 && r.err == nil; n-- {
			r.valType()
		}
	case op == 0x1f: // try_table
		r.blockType()
		for n := r.u32(); n > 0 && r.err == nil; n-- {
			if kind := r.byte(); kind < 2 {
				r.u32() // the tag
			}
			r.u32() // the label
		}
	case op >= 0x28 && op <= 0x3e:
		r.memArg()
	case op == 0x41:
		r.skipLEB(5)
	case op == 0x42:
		r.skipLEB(10)
	case op == 0x43:
		r.bytes(4)
	case op == 0x44:
		r.bytes(8)
	case op == 0xd0: // ref.null
		r.heapType()
	case op == 0xfc:
		r.miscOp()
	case op == 0xfd:
		r.vectorOp()
	case op == 0xfe:
		r.atomicOp()
	default:
		r.fail(fmt.Errorf("unknown opcode 0x%02x at offset %d", op, r.pos-1))
	}
	return op, idx, kind
}

// blockType skips a block type: empty, a value type or a type index, all
// encoded as an s33 number except the typed references.
func (r *reader) blockType() {
	if r.done() {
		r.fail(errTruncated)
	} else if c := r.b[r.pos]; c&0xc0 == 0 || c&0x80 != 0 {
		r.typeIndex(r.u32())
	} else {
		r.valType()
	}
}

// valType skips a value type.
func (r *reader) valType() {
	if c := r.byte(); c == 0x63 || c == 0x64 { // (ref null? heaptype)
		r.heapType()
	}
}

// heapType skips a heap type: an abstract type in one negative byte, or a
// type index.
func (r *reader) heapType() {
	if r.done() {
		r.fail(errTruncated)
	} else if c := r.b[r.pos]; c&0xc0 == 0x40 {
		r.pos++
	} else {
		r.typeIndex(r.u32())
	}
}

// memArg skips a memory argument: alignment (with a memory index when bit 6
// is set) and offset.
func (r *reader) memArg() {
	if align := r.u32(); align&0x40 != 0 {
		r.u32()
	}
	r.skipLEB(10)
}

// miscOp skips the rest of a 0xfc-prefixed instruction.
func (r *reader) miscOp() {
	switch sub := r.u32(); {
	case sub <= 7: // saturating truncations
	case sub == 8, sub == 10, sub == 12, sub == 14: // memory.init, memory.copy, table.init, table.copy
		r.u32()
		r.u32()
	case sub == 9, sub == 11, sub == 13, sub >= 15 && sub <= 17:
		r.u32()
	default:
		r.fail(fmt.Errorf("unknown instruction 0xfc %d", sub))
	}
}

// vectorOp skips the rest of a 0xfd-prefixed (SIMD) instruction.
func (r *reader) vectorOp() {
	switch sub := r.u32(); {
	case sub <= 11, sub == 92, sub == 93: // loads and stores
		r.memArg()
	case sub == 12, sub == 13: // v128.const, i8x16.shuffle
		r.bytes(16)
	case sub >= 21 && sub <= 34: // lane extracts and replaces
		r.byte()
	case sub >= 84 && sub <= 91: // lane loads and stores
		r.memArg()
		r.byte()
	case sub > 0x113:
		r.fail(fmt.Errorf("unknown instruction 0xfd %d", sub))
	}
}

// atomicOp skips the rest of a 0xfe-prefixed (threads) instruction.
func (r *reader) atomicOp() {
	switch sub := r.u32(); {
	case sub == 3: // atomic.fence
		r.byte()
	case sub <= 2, sub >= 0x10 && sub <= 0x4e:
		r.memArg()
	default:
		r.fail(fmt.Errorf("unknown instruction 0xfe %d", sub))
	}
}

// body appends the instrumented function body src (locals and code) to dst.
func (rw *rewriter) body(dst, src []byte) ([]byte, error) {
	r := rw.reader(src)
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		r.u32()
		r.valType()
	}
	if r.err != nil {
		return nil, fmt.Errorf("locals: %w", r.err)
	}
	dst = append(dst, src[:r.pos]...)
	code := rw.reader(src[r.pos:])
	dispatch := !hasExceptions(*code)
	if needsEntryCheck(*code) {
		dst = append(dst, rw.check...)
	}
	var (
		labels  []label
		pending *dispatchLoop // a dispatch loop whose blocks come next
		prev    [2][]byte     // the last two instructions
	)
	for !code.done() {
		start := code.pos
		op, idx, kind := instr(code)
		ins := code.b[start:code.pos]
		switch {
		case code.err != nil || !rw.exists(code, kind, idx):
		case kind == funcIndex:
			dst = appendU32(append(dst, op), rw.shift(idx))
		case op == opLoop:
			l := label{}
			if dispatch && ins[1] == 0x40 {
				l.dispatch = readDispatch(*code)
			}
			dst = append(append(dst, ins...), rw.check...)
			if dispatch {
				labels, pending = append(labels, l), l.dispatch
			}
		case op == 0x0c && jumpsForward(labels, ins, prev) >= 0:
			dst = appendU32(append(dst, op), uint32(jumpsForward(labels, ins, prev)))
		default:
			dst = append(dst, ins...)
		}
		if dispatch {
			labels, pending = nest(labels, pending, op)
		}
		prev = [2][]byte{prev[1], ins}
	}
	return dst, code.err
}

// nest follows the blocks, loops and ifs that open and close at op (loops
// are pushed where they are rewritten), marking the blocks of the dispatch
// loop pending as its own.
func nest(labels []label, pending *dispatchLoop, op byte) ([]label, *dispatchLoop) {
	switch op {
	case 0x02, 0x04:
		l := label{}
		if op == 0x02 && pending != nil && pending.opened < pending.blocks {
			l.block = pending
			pending.opened++
		}
		labels = append(labels, l)
	case opEnd:
		if n := len(labels); n > 0 {
			if d := labels[n-1].block; d != nil {
				d.closed++
			}
			labels = labels[:n-1]
		}
	}
	return labels, pending
}

// jumpsForward returns, for a br ins that jumps to a basic block further on
// in a dispatch loop (see dispatch.go), the label of the block whose end
// that basic block follows; or -1. Branching there directly skips the
// loop's header and br_table and lands where they would have.
func jumpsForward(labels []label, ins []byte, prev [2][]byte) int {
	lr := reader{b: ins[1:]}
	l := lr.u32()
	if int(l) >= len(labels) {
		return -1 // the function's own label: a return
	}
	d := labels[len(labels)-1-int(l)].dispatch
	if d == nil {
		return -1
	}
	c, s := prev[0], prev[1]
	if len(c) < 2 || c[0] != 0x41 || len(s) < 2 || s[0] != 0x21 {
		return -1
	}
	cr, sr := reader{b: c[1:]}, reader{b: s[1:]}
	t, pc := cr.s32(), sr.u32()
	j, ok := d.forward(t)
	if cr.err != nil || sr.err != nil || pc != d.pc || !ok {
		return -1
	}
	// The target follows the end of the loop's (m-j)th block.
	return int(l) - (d.blocks - j)
}

// exists checks that a global index names one of the module's own.
// An invalid module that names the index one past its last would otherwise
// become valid, naming what instrumentation adds: and the fuel is not the
// guest's to touch.
func (rw *rewriter) exists(r *reader, kind index, idx uint32) bool {
	if kind == globalIndex && idx >= rw.globals {
		r.fail(fmt.Errorf("unknown global %d", idx))
		return false
	}
	return true
}

// needsEntryCheck reports whether a function needs a check on entry: it
// makes calls (so it may recurse), and does not reach a loop, whose own
// check runs on entry anyway, through straight-line code first.
//
// NB: every function Go compiles to Wasm opens with a few such instructions
// and then the loop its jumps dispatch through, so without this each call
// into Go code would pass two checks back to back.
func needsEntryCheck(code reader) bool {
	straight := true
	for !code.done() {
		op, _, _ := instr(&code)
		if straight && op == opLoop {
			return false
		}
		straight = straight && fallsThrough(op)
		if makesCall(op) {
			return true
		}
	}
	return false
}

// fallsThrough reports whether op always passes control to the next
// instruction without calling out: a block's start, nop, and reading or
// writing locals, globals and constants. (A trap ends the call, so it needs
// no check either; but only these are listed, being all that compilers put
// before a function's first loop.)
func fallsThrough(op byte) bool {
	switch op {
	case 0x01, 0x02, // nop, block
		0x20, 0x21, 0x22, opGlobalGet, opGlobalSet, // local.get/set/tee, global.get/set
		0x41, 0x42: // i32.const, i64.const
		return true
	}
	return false
}

// constExpr appends the constant expression at r (up to and including its
// end) to dst, renumbering ref.func.
func (rw *rewriter) constExpr(dst []byte, r *reader) []byte {
	for !r.done() {
		start := r.pos
		op, idx, kind := instr(r)
		switch {
		case r.err != nil || !rw.exists(r, kind, idx):
			return dst
		case kind == funcIndex:
			dst = appendU32(append(dst, op), rw.shift(idx))
		default:
			dst = append(dst, r.b[start:r.pos]...)
		}
		if op == opEnd {
			return dst
		}
	}
	r.fail(errTruncated)
	return dst
}
