package wasmbin

// Go compiles each function to Wasm as one dispatch loop: every basic block
// of the Go function is the code after the end of one of a chain of blocks
// inside the loop, and every jump between basic blocks, forward or back,
// sets a local to the target's number and branches to the loop's start,
// where a br_table on that local branches on to the target:
//
//	loop
//	  block ... block          ;; m blocks
//	    local.get $pc
//	    br_table ...           ;; to the code after the end of block m-j
//	  end  code_0
//	  ...
//	  end  code_(m-1)
//	end
//
// where a jump from code_k to the basic block numbered t is
//
//	i32.const t  local.set $pc  br $loop
//
// The check in the loop's header would pay for every jump, forward or not,
// and each would pass the br_table's indirect jump and the merge of every
// local that wazero builds at the header. But a jump from code_k whose
// constant target lands in code_j, j > k, lands after the end of block m-j,
// which encloses the jump: the rewrite branches there directly, to the same
// place with the same locals. Only jumps back (or to targets it cannot
// tell) still go through the header and its check, and code moves only
// forward between two of them, through at most m blocks.
//
// NB: checking each jump back at the jump instead of in the header, with
// no check in the header, was measured too: no faster (the check's call is
// then in as many places as there are jumps back).

// dispatchLoop is a recognised dispatch loop being rewritten.
type dispatchLoop struct {
	pc     uint32   // the local the br_table reads
	blocks int      // m: the dispatch blocks
	table  []uint32 // the br_table's labels, the default last
	opened int      // dispatch blocks opened so far
	closed int      // dispatch blocks whose end has passed: in code_(closed-1)
}

// label is one open block, loop or if of a function body being rewritten.
type label struct {
	dispatch *dispatchLoop // for a recognised dispatch loop
	block    *dispatchLoop // for one of a dispatch loop's blocks
}

// readDispatch recognises the start of a dispatch loop at r, just after
// its loop instruction (whose block type must be empty), and returns it, or
// nil. r is not moved.
func readDispatch(r reader) *dispatchLoop {
	d := &dispatchLoop{}
	for !r.done() && r.b[r.pos] == 0x02 {
		if r.pos+1 >= len(r.b) || r.b[r.pos+1] != 0x40 {
			return nil
		}
		r.pos += 2
		d.blocks++
	}
	if d.blocks == 0 || r.byte() != 0x20 {
		return nil
	}
	d.pc = r.u32()
	if r.byte() != 0x0e {
		return nil
	}
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		d.table = append(d.table, r.u32())
	}
	d.table = append(d.table, r.u32())
	if r.err != nil {
		return nil
	}
	for _, l := range d.table {
		if int(l) >= d.blocks {
			return nil // a label past the blocks: not Go's shape
		}
	}
	return d
}

// forward returns the basic block j, in code_j, that a branch to d's start
// with $pc set to t reaches, and whether it lies further on than the code
// the rewrite is in.
func (d *dispatchLoop) forward(t int32) (int, bool) {
	j := d.table[len(d.table)-1]
	if t >= 0 && int(t) < len(d.table)-1 {
		j = d.table[t]
	}
	return int(j), int(j) > d.closed-1
}

// hasExceptions reports whether code uses exception handling, whose
// blocks and branches (try, delegate, try_table's catches) the dispatch
// rewrite does not follow; it leaves such functions as they are.
func hasExceptions(code reader) bool {
	for !code.done() {
		switch op, _, _ := instr(&code); op {
		case 0x06, 0x07, 0x08, 0x09, 0x18, 0x19, 0x1f, 0xd5, 0xd6:
			return true
		}
	}
	return code.err != nil
}

// s32 reads a signed LEB128 number of at most 32 bits.
func (r *reader) s32() int32 {
	var v int64
	shift := 0
	for {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return int32(v)
		}
		if shift >= 35 {
			r.fail(errTruncated)
			return 0
		}
	}
}
