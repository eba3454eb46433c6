package floe

import (
	"encoding/binary"
	"math/bits"
)

// IndexByte returns the index of the first c in b, or -1; it is
// bytes.IndexByte, eight bytes a step. In Wasm, Go's bytes.IndexByte takes
// a step per byte, and a host that can stop runaway guests pays for every
// step of a loop: this is several times cheaper on typical records.
func IndexByte(b []byte, c byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	rep := uint64(c) * ones
	i := 0
	for ; i+8 <= len(b); i += 8 {
		// A byte of w is zero where b has c; the lowest flagged byte of
		// (w - ones) &^ w & highs is the first such byte.
		w := binary.LittleEndian.Uint64(b[i:]) ^ rep
		if t := (w - ones) &^ w & highs; t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// IndexAll writes to dst the indexes of the first len(dst) occurrences of c
// in b and returns how many it found: one pass over b, eight bytes a step,
// for splitting a delimited record.
func IndexAll(b []byte, c byte, dst []int) int {
	const lows = 0x7f7f7f7f7f7f7f7f
	rep := uint64(c) * 0x0101010101010101
	n, i := 0, 0
	for ; i+8 <= len(b) && n < len(dst); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:]) ^ rep
		// Exactly the high bits of w's zero bytes: no borrow crosses bytes.
		t := ^(((w & lows) + lows) | w | lows)
		for t != 0 && n < len(dst) {
			dst[n] = i + bits.TrailingZeros64(t)/8
			n++
			t &= t - 1
		}
	}
	for ; i < len(b) && n < len(dst); i++ {
		if b[i] == c {
			dst[n] = i
			n++
		}
	}
	return n
}

// Count returns the number of c in b, as bytes.Count(b, []byte{c}) does:
// 32 bytes a step, then eight, with no branch per match, and the last few
// bytes in one overlapping step when b has eight or more.
func Count(b []byte, c byte) int {
	const lows = 0x7f7f7f7f7f7f7f7f
	rep := uint64(c) * 0x0101010101010101
	if len(b) < 8 {
		n := 0
		for _, x := range b {
			if x == c {
				n++
			}
		}
		return n
	}
	zeros := func(w uint64) int { // the zero bytes of w
		return bits.OnesCount64(^(((w & lows) + lows) | w | lows))
	}
	n, i := 0, 0
	for ; i+32 <= len(b); i += 32 {
		s := b[i : i+32]
		n += zeros(binary.LittleEndian.Uint64(s)^rep) + zeros(binary.LittleEndian.Uint64(s[8:])^rep) +
			zeros(binary.LittleEndian.Uint64(s[16:])^rep) + zeros(binary.LittleEndian.Uint64(s[24:])^rep)
	}
	for ; i+8 <= len(b); i += 8 {
		n += zeros(binary.LittleEndian.Uint64(b[i:]) ^ rep)
	}
	if rest := len(b) - i; rest > 0 {
		// The last eight bytes, less the 8-rest already counted.
		w := binary.LittleEndian.Uint64(b[len(b)-8:]) ^ rep
		t := ^(((w & lows) + lows) | w | lows)
		n += bits.OnesCount64(t >> (8 * (8 - rest)))
	}
	return n
}
