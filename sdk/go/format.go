package floe

import "math/bits"

// AppendInt appends the decimal form of i to dst and returns the extended
// buffer, as strconv.AppendInt(dst, i, 10) does.
//
// NB: in Wasm it is several times cheaper than strconv's: it is one call,
// where strconv makes three and a copy, and writes two digits a step
// straight into dst, in 32-bit arithmetic where the number allows (Wasm has
// no instruction for the high half of a 64-bit product, which Go's division
// by a constant needs).
func AppendInt(dst []byte, i int64) []byte {
	u := uint64(i)
	if i < 0 {
		dst = append(dst, '-')
		u = -u
	}
	n := decimalLen(u)
	l := len(dst)
	if cap(dst)-l < n {
		dst = append(dst, make([]byte, n)...)[:l]
	}
	dst = dst[:l+n]
	b := dst[l:]
	k := len(b)
	for u >= 1<<32 {
		q := u / 100
		r := u - q*100
		k -= 2
		b[k], b[k+1] = decimalPairs[2*r], decimalPairs[2*r+1]
		u = q
	}
	v := uint32(u)
	for v >= 100 {
		q := v / 100
		r := v - q*100
		k -= 2
		b[k], b[k+1] = decimalPairs[2*r], decimalPairs[2*r+1]
		v = q
	}
	if v >= 10 {
		b[k-2], b[k-1] = decimalPairs[2*v], decimalPairs[2*v+1]
	} else {
		b[k-1] = byte('0' + v)
	}
	return dst
}

// decimalLen returns the number of decimal digits of u, at least 1.
func decimalLen(u uint64) int {
	// log10(2) ≈ 1233/4096: d is the length, or one less.
	d := bits.Len64(u) * 1233 >> 12
	if d < len(powersOf10) && u >= powersOf10[d] {
		d++
	}
	return max(d, 1)
}

var powersOf10 = [...]uint64{
	1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
}

// decimalPairs holds the two digits of each number below 100.
const decimalPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"
