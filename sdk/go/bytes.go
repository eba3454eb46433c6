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
