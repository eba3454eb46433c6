package state

import (
	"encoding/binary"
	"fmt"
)

// List is the handle of a list state: an ordered list of elements per key.
type List struct {
	handle
}

// Append adds elem at the end of the list of key in key group kg. It reads
// and rewrites the whole list.
func (l *List) Append(kg uint16, key, elem []byte) error {
	k := l.storeKey(kg, key)
	cur, _, err := l.b.store.Get(k)
	if err != nil {
		return l.wrap("append", err)
	}
	buf := append(l.b.val[:0], cur...)
	buf = appendElem(buf, elem)
	l.b.val = buf
	return l.wrap("append", l.b.store.Set(k, buf))
}

// Replace sets the list of key in key group kg to elems; an empty elems
// clears it.
func (l *List) Replace(kg uint16, key []byte, elems [][]byte) error {
	if len(elems) == 0 {
		return l.Clear(kg, key)
	}
	buf := l.b.val[:0]
	for _, e := range elems {
		buf = appendElem(buf, e)
	}
	l.b.val = buf
	return l.wrap("replace", l.b.store.Set(l.storeKey(kg, key), buf))
}

// Get calls fn for each element of the list of key in key group kg, in
// order. elem is valid only during the call; fn may use the Backend. An
// error from fn stops the iteration and is returned as is.
func (l *List) Get(kg uint16, key []byte, fn func(elem []byte) error) error {
	cur, ok, err := l.b.store.Get(l.storeKey(kg, key))
	if err != nil || !ok {
		return l.wrap("get", err)
	}
	buf := append(l.b.borrow(), cur...)
	defer l.b.giveBack(buf)
	for rest := buf; len(rest) > 0; {
		var elem []byte
		if elem, rest, err = nextElem(rest); err != nil {
			return l.wrap("get", err)
		}
		if err := fn(elem); err != nil {
			return err
		}
	}
	return nil
}

// Clear removes the list of key in key group kg.
func (l *List) Clear(kg uint16, key []byte) error {
	return l.wrap("clear", l.b.store.Delete(l.storeKey(kg, key)))
}

// appendElem appends one length-prefixed element.
func appendElem(dst, elem []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(elem)))
	return append(dst, elem...)
}

// nextElem splits the first length-prefixed element off buf. The error
// wraps ErrCorrupt.
func nextElem(buf []byte) (elem, rest []byte, err error) {
	n, w := binary.Uvarint(buf)
	if w <= 0 || n > uint64(len(buf)-w) {
		return nil, nil, fmt.Errorf("%w: malformed list element at %x", ErrCorrupt, buf[:min(len(buf), 16)])
	}
	return buf[w : w+int(n)], buf[w+int(n):], nil
}
