package floe

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The ABI's wire layouts (sdk/ABI.md). Everything is little-endian.

// inputHeader is the size of an input record's fixed part:
// u32 key_len, u32 value_len, i64 timestamp.
const inputHeader = 16

// outputHeader is the size of an output record's fixed part:
// u32 port, u32 value_len, i64 timestamp.
const outputHeader = 16

// NoTimestamp is the timestamp of a record without event time, and the
// timestamp an emitted record carries to inherit its input's.
const NoTimestamp int64 = -1 << 63

var errShortBuffer = errors.New("floe: truncated buffer")

// decodeInput reads the input record at off and returns its parts and the
// offset of the next record.
func decodeInput(buf []byte, off int) (key, value []byte, ts int64, next int, err error) {
	if len(buf)-off < inputHeader {
		return nil, nil, 0, 0, errShortBuffer
	}
	kl := int(binary.LittleEndian.Uint32(buf[off:]))
	vl := int(binary.LittleEndian.Uint32(buf[off+4:]))
	ts = int64(binary.LittleEndian.Uint64(buf[off+8:]))
	start := off + inputHeader
	if kl < 0 || vl < 0 || len(buf)-start < kl+vl {
		return nil, nil, 0, 0, errShortBuffer
	}
	key = buf[start : start+kl : start+kl]
	value = buf[start+kl : start+kl+vl : start+kl+vl]
	return key, value, ts, start + kl + vl, nil
}

// appendOutput appends one output record to dst.
func appendOutput(dst []byte, port uint32, value []byte, ts int64) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, port)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(value)))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(ts))
	return append(dst, value...)
}

// decodeParams reads a parameter block: u32 count, then count pairs of
// length-prefixed key and value.
func decodeParams(buf []byte) (Params, error) {
	if len(buf) < 4 {
		return nil, fmt.Errorf("floe: parameter block of %d bytes", len(buf))
	}
	n := int(binary.LittleEndian.Uint32(buf))
	p := make(Params, n)
	off := 4
	for i := 0; i < n; i++ {
		k, next, err := readBytes(buf, off)
		if err != nil {
			return nil, err
		}
		v, next, err := readBytes(buf, next)
		if err != nil {
			return nil, err
		}
		p[string(k)] = string(v)
		off = next
	}
	return p, nil
}

// readBytes reads one u32-length-prefixed byte string at off.
func readBytes(buf []byte, off int) ([]byte, int, error) {
	if len(buf)-off < 4 {
		return nil, 0, errShortBuffer
	}
	n := int(binary.LittleEndian.Uint32(buf[off:]))
	off += 4
	if n < 0 || len(buf)-off < n {
		return nil, 0, errShortBuffer
	}
	return buf[off : off+n : off+n], off + n, nil
}

// forEachElement walks a run of u32-length-prefixed elements, as list_get
// returns them.
func forEachElement(buf []byte, fn func(elem []byte) error) error {
	for off := 0; off < len(buf); {
		e, next, err := readBytes(buf, off)
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
		off = next
	}
	return nil
}

// forEachEntry walks a run of length-prefixed key/value pairs, as
// map_entries returns them.
func forEachEntry(buf []byte, fn func(k, v []byte) error) error {
	for off := 0; off < len(buf); {
		k, next, err := readBytes(buf, off)
		if err != nil {
			return err
		}
		v, next, err := readBytes(buf, next)
		if err != nil {
			return err
		}
		if err := fn(k, v); err != nil {
			return err
		}
		off = next
	}
	return nil
}
