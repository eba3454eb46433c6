package file

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/floe-stream/floe/internal/connector"
)

// positionVersion is the first byte of an encoded position, so that a future
// layout can still read this one.
const positionVersion = 1

// positionLen is the length of an encoded position: the version byte, then
// offset and end as big-endian 64-bit integers.
const positionLen = 17

// unbounded is the range end of a source in follow mode.
const unbounded = math.MaxInt64

// encodePosition returns the encoding of a source that will next read the
// line at offset and stops before lines starting at or after end.
func encodePosition(offset, end int64) []byte {
	p := make([]byte, 1, positionLen)
	p[0] = positionVersion
	p = binary.BigEndian.AppendUint64(p, uint64(offset))
	return binary.BigEndian.AppendUint64(p, uint64(end))
}

// decodePosition reverses encodePosition.
func decodePosition(p []byte) (offset, end int64, err error) {
	if len(p) != positionLen || p[0] != positionVersion {
		return 0, 0, fmt.Errorf("file source: %w: want %d bytes of version %d", connector.ErrBadPosition, positionLen, positionVersion)
	}
	offset = int64(binary.BigEndian.Uint64(p[1:]))
	end = int64(binary.BigEndian.Uint64(p[9:]))
	if offset < 0 || end < 0 {
		return 0, 0, fmt.Errorf("file source: %w: negative offset %d or end %d", connector.ErrBadPosition, offset, end)
	}
	return offset, end, nil
}
