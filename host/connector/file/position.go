package file

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/floe-stream/floe/host/connector"
)

// stateVersion is the first byte of an encoded split state, so that a future
// layout can still read this one. Version 1 was the single position of a
// source before it held several splits; it is not accepted.
const stateVersion = 2

// stateLen is the length of an encoded split state: the version byte, then
// start, end and offset as big-endian 64-bit integers.
const stateLen = 25

// unbounded is the range end of the split of a source in follow mode.
const unbounded = math.MaxInt64

// split is a byte range [start, end) of the file, whose lines are those that
// start in it, and how far it has been read.
type split struct {
	start, end int64
	// offset is where the next line to emit starts. When it equals start
	// the split may not be aligned yet: its first line is then the first
	// that starts at or after start, found by skipping the tail of the line
	// that straddles start. Aligning a split whose start is already a line
	// start changes nothing, so the two cases need not be told apart.
	offset int64
}

// follows reports whether s is the split of follow mode: the whole file,
// however long it grows.
func (s split) follows() bool { return s.end == unbounded }

// done reports whether a bounded split has no line left.
func (s split) done() bool { return s.offset >= s.end }

// encode returns the split state that Position hands out for s.
func (s split) encode() []byte {
	p := make([]byte, 1, stateLen)
	p[0] = stateVersion
	p = binary.BigEndian.AppendUint64(p, uint64(s.start))
	p = binary.BigEndian.AppendUint64(p, uint64(s.end))
	return binary.BigEndian.AppendUint64(p, uint64(s.offset))
}

// decodeSplit reverses split.encode.
func decodeSplit(p []byte) (split, error) {
	if len(p) != stateLen || p[0] != stateVersion {
		return split{}, fmt.Errorf("file source: %w: want %d bytes of version %d", connector.ErrBadPosition, stateLen, stateVersion)
	}
	s := split{
		start:  int64(binary.BigEndian.Uint64(p[1:])),
		end:    int64(binary.BigEndian.Uint64(p[9:])),
		offset: int64(binary.BigEndian.Uint64(p[17:])),
	}
	if s.start < 0 || s.end < s.start || s.offset < s.start {
		return split{}, fmt.Errorf("file source: %w: range [%d, %d) with offset %d", connector.ErrBadPosition, s.start, s.end, s.offset)
	}
	return s, nil
}
