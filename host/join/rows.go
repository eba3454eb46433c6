package join

import (
	"encoding/binary"
	"fmt"
)

// Side is the input a record comes by.
type Side uint8

// The two sides of a join.
const (
	Left  Side = 0
	Right Side = 1
)

func (s Side) String() string {
	if s == Left {
		return "left"
	}
	return "right"
}

// flip maps an int64 to a uint64 whose big-endian bytes sort as the
// int64s do, negative times included.
func flip(ts int64) uint64 { return uint64(ts) ^ (1 << 63) }

func unflip(u uint64) int64 { return int64(u ^ (1 << 63)) }

// intervalKey is the map key of an interval join's row: side, timestamp,
// sequence number, so that a key's rows iterate by side, then time, then
// arrival.
func intervalKey(s Side, ts int64, seq uint64) []byte {
	k := make([]byte, 17)
	k[0] = byte(s)
	binary.BigEndian.PutUint64(k[1:], flip(ts))
	binary.BigEndian.PutUint64(k[9:], seq)
	return k
}

func decodeIntervalKey(k []byte) (Side, int64, uint64, error) {
	if len(k) != 17 || k[0] > byte(Right) {
		return 0, 0, 0, fmt.Errorf("join: corrupt interval row key %x", k)
	}
	return Side(k[0]), unflip(binary.BigEndian.Uint64(k[1:])), binary.BigEndian.Uint64(k[9:]), nil
}
