package keygroup

import "testing"

// The vectors are published MurmurHash3_x86_32 results with seed 0 and were
// cross-checked against an independent implementation; they are not
// derived from this package.
func TestHashVectors(t *testing.T) {
	tests := []struct {
		in   string
		want uint32
	}{
		{"", 0},
		{"\x00\x00\x00\x00", 0x2362f9de},
		{"a", 0x3c2569b2},
		{"ab", 0x9bbfd75f},
		{"abc", 0xb3dd93fa},
		{"abcd", 0x43ed676a},
		{"hello", 0x248bfa47},
		{"aaaa", 0x7eeed987},
		{"Hello, world!", 0xc0363e43},
		{"The quick brown fox jumps over the lazy dog", 0x2e4ff723},
	}
	for _, tt := range tests {
		if got := Hash([]byte(tt.in)); got != tt.want {
			t.Errorf("Hash(%q) = %#08x, want %#08x", tt.in, got, tt.want)
		}
	}
}

func TestHashDoesNotAllocate(t *testing.T) {
	key := []byte("some key")
	if n := testing.AllocsPerRun(100, func() { Hash(key) }); n != 0 {
		t.Errorf("Hash allocates %v times per call", n)
	}
}

func TestOfSpreadsKeys(t *testing.T) {
	const maxPar, keys = 128, 128 * 1000
	counts := make([]int, maxPar)
	var key []byte
	for i := range keys {
		key = append(key[:0], byte(i), byte(i>>8), byte(i>>16))
		counts[Of(key, maxPar)]++
	}
	for kg, n := range counts {
		if n < 800 || n > 1200 {
			t.Errorf("key group %d got %d of %d keys; want about %d", kg, n, keys, keys/maxPar)
		}
	}
}

func BenchmarkHash(b *testing.B) {
	key := []byte("user-000123456")
	for b.Loop() {
		Hash(key)
	}
}
