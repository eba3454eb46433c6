package nexmark

import "math/bits"

// javaRandom is java.util.Random: the 48-bit linear congruential generator
// that the Nexmark generators of Apache Beam and Flink seed with each event's
// number. Drawing from the same generator in the same order as they do gives
// the same fields for the same event.
type javaRandom struct {
	seed uint64
}

const (
	javaMultiplier = 0x5DEECE66D
	javaAddend     = 0xB
	javaMask       = 1<<48 - 1
)

// newJavaRandom returns the generator new java.util.Random(seed) would be.
func newJavaRandom(seed int64) javaRandom {
	return javaRandom{seed: (uint64(seed) ^ javaMultiplier) & javaMask}
}

// next returns the next bits-bit draw (1 <= bits <= 32) as a Java int.
func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*javaMultiplier + javaAddend) & javaMask
	return int32(r.seed >> (48 - bits))
}

// nextInt returns Random.nextInt(bound), uniform in [0, bound); bound must
// be positive.
func (r *javaRandom) nextInt(bound int32) int32 {
	if bound&(bound-1) == 0 {
		return int32(int64(bound) * int64(r.next(31)) >> 31)
	}
	for {
		b := r.next(31)
		v := b % bound
		// NB: Java rejects the draw when b-v+(bound-1) overflows an int,
		// which is how it removes the modulo bias.
		if b-v+(bound-1) >= 0 {
			return v
		}
	}
}

// nextLong returns Random.nextLong().
func (r *javaRandom) nextLong() int64 {
	hi := int64(r.next(32))
	return hi<<32 + int64(r.next(32))
}

// nextDouble returns Random.nextDouble(), uniform in [0, 1).
func (r *javaRandom) nextDouble() float64 {
	hi := int64(r.next(26))
	return float64(hi<<27+int64(r.next(27))) * 0x1p-53
}

// boundedLong returns a draw from [0, n), n >= 1, as the generators'
// LongGenerator.nextLong does: nextInt when n fits an int, and otherwise
// the (skewed) absolute value of nextLong modulo n.
func (r *javaRandom) boundedLong(n int64) int64 {
	if n < 1<<31-1 {
		return int64(r.nextInt(int32(n)))
	}
	v := r.nextLong() % n
	if v < 0 {
		v = -v
	}
	return v
}

// reverse32 returns Java's Math.abs(Integer.reverse(v)): the bits of v
// reversed, as a non-negative int except for Integer.MIN_VALUE, which Java's
// abs leaves negative.
func reverse32(v int32) int32 {
	r := int32(bits.Reverse32(uint32(v)))
	if r < 0 {
		r = -r
	}
	return r
}
