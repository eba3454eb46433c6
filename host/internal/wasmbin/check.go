package wasmbin

import (
	"bytes"
	"errors"
	"fmt"
)

// Limits on what a module may declare. They follow wasmparser's, which
// Wasmtime enforces; a module from any toolchain is far inside them.
const (
	maxTypes         = 1_000_000
	maxFunctions     = 1_000_000
	maxImports       = 100_000
	maxExports       = 100_000
	maxGlobals       = 1_000_000
	maxTags          = 1_000_000
	maxElemSegments  = 100_000
	maxDataSegments  = 100_000
	maxTables        = 100
	maxMemories      = 100
	maxTableEntries  = 10_000_000
	maxParams        = 1_000
	maxResults       = 1_000
	maxLocals        = 50_000
	maxFunctionBytes = 7_654_321
)

// LimitError is the error of a module that declares more than Check
// allows.
type LimitError struct {
	Section string // the section, or "" for the module
	What    string
	Count   uint64
	Limit   uint64
	Room    bool // the limit is the room left in the section
}

func (e *LimitError) Error() string {
	where := ""
	if e.Section != "" {
		where = " in the " + e.Section + " section"
	}
	if e.Room {
		return fmt.Sprintf("declares %d %s%s, which has room for at most %d", e.Count, e.What, where, e.Limit)
	}
	return fmt.Sprintf("declares %d %s%s, more than the limit of %d", e.Count, e.What, where, e.Limit)
}

var sectionNames = map[byte]string{
	secCustom: "custom", secType: "type", secImport: "import", secFunction: "function",
	secTable: "table", secMemory: "memory", secGlobal: "global", secExport: "export",
	secStart: "start", secElement: "element", secCode: "code", secData: "data",
	secDataCount: "data count", secTag: "tag",
}

// Check returns a *LimitError if wasm declares more than the limits, or
// more items than its sections have room for, and an error if a count it
// reads is cut short (wazero would read on into the next section). Other
// faults are for the runtime to report: Check returns nil for input that is
// not a module.
func Check(wasm []byte) error {
	if len(wasm) < 8 || !bytes.Equal(wasm[:8], []byte("\x00asm\x01\x00\x00\x00")) {
		return nil
	}
	secs, err := split(wasm[8:])
	c := &checker{}
	for _, s := range secs {
		r := &reader{b: s.data, types: ^uint32(0)}
		c.section = sectionNames[s.id]
		c.section1(s.id, r)
		var le *LimitError
		switch {
		case errors.As(r.err, &le):
			return le
		case r.err != nil:
			return fmt.Errorf("malformed %s section: %w", c.section, r.err)
		}
	}
	return err
}

type checker struct {
	section string
	types   uint32
}

// count reads a count of what, each item taking at least size bytes.
func (c *checker) count(r *reader, what string, limit uint64, size int) uint64 {
	n := uint64(r.u32())
	switch room := uint64((len(r.b) - r.pos) / size); {
	case r.err != nil:
	case n > limit:
		r.fail(&LimitError{Section: c.section, What: what, Count: n, Limit: limit})
	case n > room:
		r.fail(&LimitError{Section: c.section, What: what, Count: n, Limit: room, Room: true})
	}
	return n
}

func (c *checker) section1(id byte, r *reader) {
	switch id {
	case secType:
		c.types = r.u32()
		r.pos = 0
		for n := c.count(r, "types", maxTypes, 3); n > 0 && !r.done(); n-- {
			if r.byte() != 0x60 {
				return // not a function type: for wazero to refuse
			}
			c.valTypes(r, "parameters", maxParams)
			c.valTypes(r, "results", maxResults)
		}
	case secImport:
		for n := c.count(r, "imports", maxImports, 4); n > 0 && !r.done(); n-- {
			r.name()
			r.name()
			switch r.byte() {
			case 0:
				c.typeIndex(r)
			case 4:
				r.byte()
				r.u32()
			case 1:
				c.tableType(r)
			case 2:
				r.limits()
			case 3:
				r.valType()
				r.byte()
			default:
				return
			}
		}
	case secFunction:
		for n := c.count(r, "functions", maxFunctions, 1); n > 0 && !r.done(); n-- {
			c.typeIndex(r)
		}
	case secTable:
		for n := c.count(r, "tables", maxTables, 3); n > 0 && !r.done(); n-- {
			if r.b[r.pos] == 0x40 {
				r.bytes(2)
				c.tableType(r)
				skipExpr(r)
				continue
			}
			c.tableType(r)
		}
	case secMemory:
		c.count(r, "memories", maxMemories, 2)
	case secGlobal:
		c.count(r, "globals", maxGlobals, 3)
	case secExport:
		c.count(r, "exports", maxExports, 3)
	case secElement:
		c.elements(r)
	case secCode:
		for n := c.count(r, "function bodies", maxFunctions, 2); n > 0 && !r.done(); n-- {
			c.body(r)
		}
	case secData:
		c.count(r, "data segments", maxDataSegments, 2)
	case secDataCount:
		if n := uint64(r.u32()); n > maxDataSegments {
			r.fail(&LimitError{Section: c.section, What: "data segments", Count: n, Limit: maxDataSegments})
		}
	case secTag:
		c.count(r, "tags", maxTags, 2)
	case secCustom:
		if r.name() == "name" {
			c.names(r)
		}
	}
}

// typeIndex reads a function's type index. NB: wazero v1.12 validates
// code before the function section's type indices, and panics on one out
// of range.
func (c *checker) typeIndex(r *reader) {
	if i := r.u32(); i >= c.types && r.err == nil {
		r.fail(fmt.Errorf("unknown type %d", i))
	}
}

func (c *checker) valTypes(r *reader, what string, limit uint64) {
	for n := c.count(r, what, limit, 1); n > 0 && !r.done(); n-- {
		r.valType()
	}
}

func (c *checker) tableType(r *reader) {
	r.valType()
	flags := r.byte()
	if min := uint64(r.u32()); min > maxTableEntries && r.err == nil {
		r.fail(&LimitError{Section: c.section, What: "table entries", Count: min, Limit: maxTableEntries})
	}
	if flags&1 != 0 {
		r.u32()
	}
}

func (c *checker) elements(r *reader) {
	for n := c.count(r, "element segments", maxElemSegments, 2); n > 0 && !r.done(); n-- {
		flags := r.u32()
		if flags > 7 {
			return
		}
		if flags&3 == 2 {
			r.u32()
		}
		if flags&1 == 0 {
			skipExpr(r)
		}
		if flags&3 != 0 {
			r.valType()
		}
		for m := c.count(r, "elements", maxTableEntries, 1); m > 0 && !r.done(); m-- {
			if flags&4 != 0 {
				skipExpr(r)
			} else {
				r.u32()
			}
		}
	}
}

// body checks one function body's size and locals.
func (c *checker) body(r *reader) {
	size := uint64(r.u32())
	if size > maxFunctionBytes && r.err == nil {
		r.fail(&LimitError{Section: c.section, What: "bytes of function body", Count: size, Limit: maxFunctionBytes})
		return
	}
	b := &reader{b: r.bytes(int(size)), types: r.types}
	var sum uint64
	for n := c.count(b, "local declarations", maxLocals, 2); n > 0 && !b.done(); n-- {
		sum += uint64(b.u32())
		b.valType()
	}
	if sum > maxLocals && b.err == nil {
		r.fail(&LimitError{Section: c.section, What: "locals in one function", Count: sum, Limit: maxLocals})
	}
	if le := (*LimitError)(nil); errors.As(b.err, &le) {
		r.fail(le)
	}
}

// names checks the name section's function and local name maps.
func (c *checker) names(r *reader) {
	for !r.done() {
		id := r.byte()
		sub := &reader{b: r.bytes(int(r.u32())), types: r.types}
		if id < 1 || id > 3 {
			continue
		}
		for n := c.count(sub, "names", maxFunctions, 2); n > 0 && !sub.done(); n-- {
			sub.u32()
			if id == 1 {
				sub.name()
				continue
			}
			for m := c.count(sub, "names", maxLocals, 2); m > 0 && !sub.done(); m-- {
				sub.u32()
				sub.name()
			}
		}
		if le := (*LimitError)(nil); errors.As(sub.err, &le) {
			r.fail(le)
		}
	}
}

// skipExpr skips a constant expression.
func skipExpr(r *reader) {
	for !r.done() {
		if op, _, _ := instr(r); op == opEnd {
			return
		}
	}
}
