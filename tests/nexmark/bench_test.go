package nexmark

import "testing"

// BenchmarkReference times parsing a million generated events and
// computing each query over them by brute force.
func BenchmarkReference(b *testing.B) {
	_, _, strs := generate(1_000_000, 10_000)
	b.ResetTimer()
	for range b.N {
		e, err := Parse(strs)
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range []func(*Events) []string{Q1, Q2, Q5, Q7, Q8} {
			q(e)
		}
	}
}

// BenchmarkNativeQ1 times Q1Native, in events per second of input.
func BenchmarkNativeQ1(b *testing.B) {
	lines, _, _ := generate(100_000, 10_000)
	var buf []byte
	b.ResetTimer()
	for i := range b.N {
		buf, _, _ = Q1Native(buf[:0], lines[i%len(lines)])
	}
}

// BenchmarkNativeQ5 times Q5Native over a stream in time order.
func BenchmarkNativeQ5(b *testing.B) {
	lines, stamps, _ := generate(1_000_000, 10_000)
	emit := func([]byte) {}
	b.ResetTimer()
	var q Q5Native
	for i := range b.N {
		if i%len(lines) == 0 {
			q.Flush(emit)
			q = Q5Native{}
		}
		if err := q.Add(lines[i%len(lines)], stamps[i%len(lines)], emit); err != nil {
			b.Fatal(err)
		}
	}
}
