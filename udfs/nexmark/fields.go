package main

import floe "github.com/floe-stream/floe/sdk/go"

// The number of comma-separated fields of each event line.
const (
	personFields  = 8
	auctionFields = 10
	bidFields     = 7
)

// split cuts line at its commas into f and reports whether it has exactly
// len(f) fields. The fields alias line.
func split(line []byte, f [][]byte) bool {
	for i := range f {
		j := floe.IndexByte(line, ',')
		if i == len(f)-1 {
			f[i] = line
			return j < 0
		}
		if j < 0 {
			return false
		}
		f[i], line = line[:j], line[j+1:]
	}
	return false
}

// atoi reads a non-negative decimal integer of 1 to 18 digits.
func atoi(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// ints reads each of b as atoi does into v, and reports whether all are
// integers.
func ints(v []int64, b ...[]byte) bool {
	for i := range b {
		var ok bool
		if v[i], ok = atoi(b[i]); !ok {
			return false
		}
	}
	return true
}
