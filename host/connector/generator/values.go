package generator

import (
	"strconv"

	"github.com/floe-stream/floe/host/connector"
)

// valuer returns the value of a subtask's k-th record, appended to dst[:0].
type valuer func(dst []byte, k int64) []byte

// sequence returns the valuer of split's share of 0, 1, 2, ...
func sequence(split connector.SplitInfo) valuer {
	i, n := int64(split.Subtask), int64(split.Parallelism)
	return func(dst []byte, k int64) []byte {
		return strconv.AppendInt(dst[:0], i+k*n, 10)
	}
}

// minKeyWidth is the least number of digits of a random value's key number.
const minKeyWidth = 6

// random returns the valuer of split's stream of random keyed values.
func random(cfg Config, split connector.SplitInfo) valuer {
	seed := mix(cfg.Seed ^ mix(uint64(split.Subtask)))
	width := max(minKeyWidth, digits(uint64(cfg.Keys-1)))
	pad := padding(cfg.Size)
	return func(dst []byte, k int64) []byte {
		key := mix(seed+uint64(k)*golden) % uint64(cfg.Keys)
		dst = append(dst[:0], "key-"...)
		dst = appendPadded(dst, key, width)
		dst = append(dst, ',')
		return append(dst, pad[:max(0, len(pad)-len(dst))]...)
	}
}

// appendPadded appends v in decimal, zero-padded to width digits.
func appendPadded(dst []byte, v uint64, width int) []byte {
	for d := digits(v); d < width; d++ {
		dst = append(dst, '0')
	}
	return strconv.AppendUint(dst, v, 10)
}

// digits returns the number of decimal digits of v.
func digits(v uint64) int {
	n := 1
	for ; v >= 10; v /= 10 {
		n++
	}
	return n
}

// padding returns n bytes of lowercase letters to fill values with.
func padding(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = 'a' + byte(i%26)
	}
	return p
}

// golden is the increment of the SplitMix64 sequence.
const golden = 0x9e3779b97f4a7c15

// mix is the SplitMix64 finalizer: it maps each 64-bit state to a
// well-scrambled output, so mix(seed + k*golden) is the k-th draw of a
// random stream that can be read at any index.
func mix(x uint64) uint64 {
	x += golden
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
