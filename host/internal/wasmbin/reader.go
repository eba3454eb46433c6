package wasmbin

import (
	"errors"
	"fmt"
)

// errTruncated is returned for input that ends inside an item.
var errTruncated = errors.New("unexpected end")

// reader decodes the binary format's primitives from b, starting at pos.
// Its methods record the first error in err and return zero values after
// it, so callers check err once after a run of reads.
type reader struct {
	b   []byte
	pos int
	err error
	// types is the number of types the module defines; the reader fails
	// on a type index beyond them.
	types uint32
}

// typeIndex checks a type index read from the input.
func (r *reader) typeIndex(idx uint32) {
	if idx >= r.types {
		r.fail(fmt.Errorf("unknown type %d", idx))
	}
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.pos = len(r.b)
}

func (r *reader) done() bool { return r.err != nil || r.pos >= len(r.b) }

func (r *reader) byte() byte {
	if r.pos >= len(r.b) {
		r.fail(errTruncated)
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

// bytes returns the next n bytes, aliasing the input.
func (r *reader) bytes(n int) []byte {
	if n < 0 || n > len(r.b)-r.pos {
		r.fail(errTruncated)
		return nil
	}
	s := r.b[r.pos : r.pos+n]
	r.pos += n
	return s
}

// u32 reads an unsigned LEB128 number of at most 32 bits.
func (r *reader) u32() uint32 {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if shift == 28 && c&0xf0 != 0 {
			r.fail(errors.New("LEB128 number too large for 32 bits"))
			return 0
		}
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.fail(errors.New("LEB128 number longer than 5 bytes"))
	return 0
}

// skipLEB skips a signed or unsigned LEB128 number of at most max bytes.
func (r *reader) skipLEB(max int) {
	for i := 0; i < max; i++ {
		if r.byte()&0x80 == 0 || r.err != nil {
			return
		}
	}
	r.fail(fmt.Errorf("LEB128 number longer than %d bytes", max))
}

// name skips a name (a length-prefixed UTF-8 string) and returns it.
func (r *reader) name() string { return string(r.bytes(int(r.u32()))) }

// appendU32 appends v as unsigned LEB128.
func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendName appends a length-prefixed name.
func appendName(b []byte, s string) []byte {
	return append(appendU32(b, uint32(len(s))), s...)
}
