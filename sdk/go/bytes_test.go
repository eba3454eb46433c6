//go:build !wasip1

package floe_test

import (
	"bytes"
	"math/rand/v2"
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
