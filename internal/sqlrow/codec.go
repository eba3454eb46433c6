package sqlrow

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrShort reports an encoded row that ends before its values do.
var ErrShort = errors.New("sqlrow: encoded row is truncated")

// AppendValue appends the encoding of v to b.
func AppendValue(b []byte, v Value) []byte {
	b = append(b, byte(v.T))
	switch v.T {
	case Boolean:
		return append(b, byte(v.I&1))
	case BigInt, Timestamp:
		return binary.LittleEndian.AppendUint64(b, uint64(v.I))
	case Double:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.F))
	case Varchar:
		b = binary.AppendUvarint(b, uint64(len(v.S)))
		return append(b, v.S...)
	}
	return b
}

// AppendRow appends the encoding of every value of r to b.
func AppendRow(b []byte, r Row) []byte {
	for _, v := range r {
		b = AppendValue(b, v)
	}
	return b
}

// DecodeValue decodes the value at the start of b and returns it with the
// number of bytes it took.
func DecodeValue(b []byte) (Value, int, error) {
	if len(b) == 0 {
		return Value{}, 0, ErrShort
	}
	t := Type(b[0])
	switch t {
	case Null:
		return Value{}, 1, nil
	case Boolean:
		if len(b) < 2 {
			return Value{}, 0, ErrShort
		}
		return Value{T: Boolean, I: int64(b[1] & 1)}, 2, nil
	case BigInt, Double, Timestamp:
		if len(b) < 9 {
			return Value{}, 0, ErrShort
		}
		u := binary.LittleEndian.Uint64(b[1:])
		switch t {
		case BigInt:
			return Int(int64(u)), 9, nil
		case Timestamp:
			return TS(int64(u)), 9, nil
		}
		return Float(math.Float64frombits(u)), 9, nil
	case Varchar:
		n, k := binary.Uvarint(b[1:])
		if k <= 0 || uint64(len(b)-1-k) < n {
			return Value{}, 0, ErrShort
		}
		end := 1 + k + int(n)
		return Str(string(b[1+k : end])), end, nil
	}
	return Value{}, 0, fmt.Errorf("sqlrow: unknown value tag 0x%02x", b[0])
}

// DecodeRow decodes n values from b into dst (reusing its storage) and
// returns it. Bytes after the n-th value are an error.
func DecodeRow(dst Row, b []byte, n int) (Row, error) {
	dst = dst[:0]
	for range n {
		v, k, err := DecodeValue(b)
		if err != nil {
			return nil, err
		}
		dst = append(dst, v)
		b = b[k:]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("sqlrow: %d bytes after the row's %d values", len(b), n)
	}
	return dst, nil
}

// PrefixLen returns the byte length of the first n values of the encoded
// row b.
func PrefixLen(b []byte, n int) (int, error) {
	off := 0
	for range n {
		_, k, err := DecodeValue(b[off:])
		if err != nil {
			return 0, err
		}
		off += k
	}
	return off, nil
}
