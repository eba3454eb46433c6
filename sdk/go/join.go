package floe

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrMalformedPair is wrapped by every error SplitPair returns.
var ErrMalformedPair = errors.New("floe: malformed join pair")

// SplitPair decodes the value a join function receives for one joined pair
// (sdk/ABI.md, "Join functions"): u32 left_len (little-endian), the left
// value, u8 has_right, then the right value, which is the rest of the frame.
// hasRight is false, and right nil, for a left outer join's left row without
// a match. left and right alias value. A frame that is shorter than its
// header, whose left_len runs past its end, whose has_right is neither 0 nor
// 1, or that has bytes after the flag when has_right is 0 is refused with an
// error wrapping ErrMalformedPair.
func SplitPair(value []byte) (left, right []byte, hasRight bool, err error) {
	if len(value) < 5 {
		return nil, nil, false, fmt.Errorf("%w: %d bytes is shorter than the 5-byte header", ErrMalformedPair, len(value))
	}
	n := binary.LittleEndian.Uint32(value)
	if uint64(n)+5 > uint64(len(value)) {
		return nil, nil, false, fmt.Errorf("%w: a left value of %d bytes does not fit in %d bytes", ErrMalformedPair, n, len(value))
	}
	left, rest := value[4:4+n], value[4+n:]
	switch rest[0] {
	case 0:
		if len(rest) > 1 {
			return nil, nil, false, fmt.Errorf("%w: has_right is 0 but %d right bytes follow", ErrMalformedPair, len(rest)-1)
		}
		return left, nil, false, nil
	case 1:
		return left, rest[1:], true, nil
	}
	return nil, nil, false, fmt.Errorf("%w: has_right is %d, not 0 or 1", ErrMalformedPair, rest[0])
}
