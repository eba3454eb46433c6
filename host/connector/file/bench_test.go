package file

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// BenchmarkFileSource reads a file of 200,000 lines of about 60 bytes with
// batches of 1,024 records, from one subtask and from each of four splits,
// and reports lines per second.
func BenchmarkFileSource(b *testing.B) {
	const lines = 200_000
	var content strings.Builder
	for i := range lines {
		fmt.Fprintf(&content, "%08d,%s\n", i, strings.Repeat("v", 50))
	}
	path := writeTemp(b, []byte(content.String()))
	for _, n := range []int{1, 4} {
		b.Run(fmt.Sprint("parallelism=", n), func(b *testing.B) {
			b.SetBytes(int64(content.Len()))
			b.ReportAllocs()
			read := 0
			for b.Loop() {
				for i := range n {
					read += readAll(b, SourceConfig{Path: path}, connector.SplitInfo{Subtask: i, Parallelism: n})
				}
			}
			if read%lines != 0 {
				b.Fatalf("read %d lines, not a multiple of %d", read, lines)
			}
			b.ReportMetric(float64(read)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// readAll reads split of cfg to its end and returns the number of lines.
func readAll(b *testing.B, cfg SourceConfig, split connector.SplitInfo) int {
	src, err := OpenSource(cfg, split)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	var batch record.Batch
	n := 0
	for {
		batch.Reset()
		err := src.Next(context.Background(), &batch, 1024)
		n += batch.Len()
		if err == io.EOF {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFileSink writes batches of 1,024 lines of about 20 bytes, a word
// count's output, into a part file, and reports lines per second.
func BenchmarkFileSink(b *testing.B) {
	var batch record.Batch
	for i := range 1024 {
		batch.Append(nil, fmt.Appendf(nil, "word%d,%d", i, i*7), record.NoTimestamp)
	}
	s, err := OpenSink(SinkConfig{Path: b.TempDir()}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	written := 0
	for b.Loop() {
		if err := s.Write(&batch); err != nil {
			b.Fatal(err)
		}
		written += batch.Len()
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(written)/b.Elapsed().Seconds(), "lines/s")
}
