//go:build !wasip1

package floe_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	floe "github.com/floe-stream/floe/sdk/go"
)

func TestIndexByteMatchesTheStandardLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(6)) + byte(r.IntN(2))*0xfa // small values and values near 0xff
		}
		c := byte(r.IntN(6))
		if r.IntN(4) == 0 {
			c += 0xfa
		}
		if got, want := floe.IndexByte(b, c), bytes.IndexByte(b, c); got != want {
			t.Fatalf("IndexByte(%v, %d) = %d, want %d", b, c, got, want)
		}
	}
}

func FuzzIndexByte(f *testing.F) {
	f.Add([]byte("auction,bidder,price"), byte(','))
	f.Fuzz(func(t *testing.T, b []byte, c byte) {
		if got, want := floe.IndexByte(b, c), bytes.IndexByte(b, c); got != want {
			t.Fatalf("IndexByte(%q, %q) = %d, want %d", b, c, got, want)
		}
	})
}

func TestIndexAllMatchesAScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(4)) + byte(r.IntN(2))*0x7e // around 0, 0x7f and 0x80
		}
		c := b0(r)
		dst := make([]int, r.IntN(8))
		var want []int
		for i, x := range b {
			if x == c && len(want) < len(dst) {
				want = append(want, i)
			}
		}
		n := floe.IndexAll(b, c, dst)
		if n != len(want) || !equalInts(dst[:n], want) {
			t.Fatalf("IndexAll(%v, %d, %d) = %v, want %v", b, c, len(dst), dst[:n], want)
		}
	}
}

func b0(r *rand.Rand) byte { return byte(r.IntN(4)) + byte(r.IntN(2))*0x7e }

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestAppendIntMatchesTheStandardLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	cases := []int64{0, 1, 9, 10, 99, 100, 999, 1000, 1<<32 - 1, 1 << 32, 1e18, 1e18 - 1, math.MaxInt64, math.MinInt64, -1, -10}
	for range 20000 {
		cases = append(cases, r.Int64()>>r.IntN(64), -(r.Int64() >> r.IntN(64)))
	}
	for i, c := range cases {
		prefix := append(make([]byte, 0, 2+i%24), "x,"...) // with and without room for the digits
		if got, want := string(floe.AppendInt(prefix, c)), string(strconv.AppendInt([]byte("x,"), c, 10)); got != want {
			t.Fatalf("AppendInt(%d) = %q, want %q", c, got, want)
		}
	}
}

func TestCountMatchesTheStandardLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		b := make([]byte, r.IntN(100)) // through each of Count's steps
		for i := range b {
			b[i] = b0(r)
		}
		c := b0(r)
		if got, want := floe.Count(b, c), bytes.Count(b, []byte{c}); got != want {
			t.Fatalf("Count(%v, %d) = %d, want %d", b, c, got, want)
		}
	}
}

func FuzzCount(f *testing.F) {
	f.Add([]byte("auction,bidder,price,channel,url,dateTime"), byte(','))
	f.Fuzz(func(t *testing.T, b []byte, c byte) {
		if got, want := floe.Count(b, c), bytes.Count(b, []byte{c}); got != want {
			t.Fatalf("Count(%q, %q) = %d, want %d", b, c, got, want)
		}
	})
}
