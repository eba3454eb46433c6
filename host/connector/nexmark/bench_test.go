package nexmark

import (
	"context"
	"testing"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

func BenchmarkGeneratorAppend(b *testing.B) {
	g := NewGenerator(0, 0)
	var buf []byte
	bytes := 0
	for n := range int64(b.N) {
		buf, _ = g.Append(buf[:0], n)
		bytes += len(buf)
	}
	b.ReportMetric(float64(bytes)/float64(b.N), "B/event")
}

func BenchmarkSourceNext(b *testing.B) {
	src, err := NewSource(Config{}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err != nil {
		b.Fatal(err)
	}
	var batch record.Batch
	for i := 0; i < b.N; i += 1024 {
		batch.Reset()
		if err := src.Next(context.Background(), &batch, 1024); err != nil {
			b.Fatal(err)
		}
	}
}
