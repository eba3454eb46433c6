package udf

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv/pebblekv"
	"github.com/floe-stream/floe/storage/state"
)

// BenchmarkWordCountOperators measures the wordcount module's two
// functions, one batch of 1024 records per call, reporting records/s.
func BenchmarkWordCountOperators(b *testing.B) {
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		b.Fatal(err)
	}
	path, err := wasmbuild.Go(filepath.Join(root, "udfs", "wordcount"), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	e := newEngine(&testing.T{}, Config{})
	m, err := e.Compile(context.Background(), "wordcount", wasm)
	if err != nil {
		b.Fatal(err)
	}
	words := make([][]byte, 5000)
	for i := range words {
		words[i] = fmt.Appendf(nil, "w%d", i)
	}
	b.Run("split", func(b *testing.B) {
		in, err := m.Instantiate(context.Background(), InstanceConfig{Function: "split", Operator: "split"})
		if err != nil {
			b.Fatal(err)
		}
		var batch, out record.Batch
		for i := 0; i < 1024; i++ {
			batch.Append(nil, fmt.Appendf(nil, "The quick brown fox %d jumps over the lazy dog", i), 0)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			out.Reset()
			if err := in.Process(context.Background(), &batch, &out); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)*1024/b.Elapsed().Seconds(), "lines/s")
	})
	b.Run("count", func(b *testing.B) {
		store, err := pebblekv.Open(b.TempDir(), pebblekv.Options{})
		if err != nil {
			b.Fatal(err)
		}
		st := keyed{state.New(store)}
		defer st.Close()
		in, err := m.Instantiate(context.Background(), InstanceConfig{Function: "count", Operator: "count", Keyed: st, KeyedInput: true})
		if err != nil {
			b.Fatal(err)
		}
		var batch, out record.Batch
		for i := 0; i < 1024; i++ {
			w := words[(i*7919)%len(words)]
			batch.AppendKeyed(w, w, 0, keygroup.Of(w, 128))
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			out.Reset()
			if err := in.Process(context.Background(), &batch, &out); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)*1024/b.Elapsed().Seconds(), "words/s")
	})
}
