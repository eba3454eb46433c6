package state

import (
	"encoding/binary"
	"fmt"

	"github.com/floe-stream/floe/storage/keygroup"
)

// MaxNamespaceLen is the longest namespace, in bytes, that the one-byte
// length of the key layout allows.
const MaxNamespaceLen = 255

// Namespace returns the namespace of state name of the operator with the
// given uid, as the key layout expects it.
func Namespace(operatorUID, name string) string {
	return operatorUID + "/" + name
}

// CheckNamespace reports whether ns can name a state. The error wraps
// ErrInvalidNamespace.
func CheckNamespace(ns string) error {
	if ns == "" {
		return fmt.Errorf("%w: the namespace is empty", ErrInvalidNamespace)
	}
	if len(ns) > MaxNamespaceLen {
		return fmt.Errorf("%w: namespace %.40q... is %d bytes, more than %d",
			ErrInvalidNamespace, ns, len(ns), MaxNamespaceLen)
	}
	return nil
}

// KeyGroupSpan returns the store key range [start, end) that holds all
// state of the key groups in r, which lies within
// [0, keygroup.MaxParallelismLimit].
func KeyGroupSpan(r keygroup.Range) (start, end []byte) {
	start = binary.BigEndian.AppendUint16(nil, uint16(r.Start))
	end = binary.BigEndian.AppendUint16(nil, uint16(r.End))
	return start, end
}

// appendKey appends the store key of a state entry to dst. nsField is the
// namespace with its length byte in front.
func appendKey(dst []byte, kg uint16, nsField, key []byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, kg)
	dst = append(dst, nsField...)
	dst = binary.AppendUvarint(dst, uint64(len(key)))
	return append(dst, key...)
}

// appendPrefixEnd appends to dst the smallest key greater than every key
// that starts with prefix. State keys start with a key group below 0x8000,
// so prefix is never all 0xff bytes.
func appendPrefixEnd(dst, prefix []byte) []byte {
	dst = append(dst, prefix...)
	for i := len(dst) - 1; i >= 0; i-- {
		if dst[i] != 0xff {
			dst[i]++
			return dst[:i+1]
		}
	}
	panic("state: prefix of only 0xff bytes")
}

// parts are the fields of a store key.
type parts struct {
	kg        uint16
	ns        []byte
	key, rest []byte
}

// decodeKey splits a store key into its fields. The error wraps ErrCorrupt.
func decodeKey(k []byte) (parts, error) {
	if len(k) < 3 || len(k) < 3+int(k[2]) {
		return parts{}, corruptKey(k)
	}
	p := parts{kg: binary.BigEndian.Uint16(k), ns: k[3 : 3+int(k[2])]}
	r := k[3+len(p.ns):]
	n, w := binary.Uvarint(r)
	if w <= 0 || n > uint64(len(r)-w) {
		return parts{}, corruptKey(k)
	}
	p.key, p.rest = r[w:w+int(n)], r[w+int(n):]
	return p, nil
}

// corruptKey reports a store key that does not follow the layout.
func corruptKey(k []byte) error {
	return fmt.Errorf("%w: malformed state key %x", ErrCorrupt, k)
}
