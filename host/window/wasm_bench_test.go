package window

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/wasmbuild"
)

// BenchmarkWasmCountAdd measures one floe_window add call of Nexmark's
// count aggregate over 2,500 groups of one record each, as q5's first
// window makes them (a group per auction and window per batch). It
// reports the process's CPU time per group besides the wall time, which
// a shared machine's load disturbs more.
func BenchmarkWasmCountAdd(b *testing.B) {
	ctx := context.Background()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		b.Fatal(err)
	}
	path, err := wasmbuild.Go(filepath.Join(root, "udfs", "nexmark"), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	e, err := udf.NewEngine(ctx, udf.Config{})
	if err != nil {
		b.Fatal(err)
	}
	m, err := e.Compile(ctx, "nexmark", wasm)
	if err != nil {
		b.Fatal(err)
	}
	in, err := m.Instantiate(ctx, udf.InstanceConfig{Function: "count", Operator: "count", KeyedInput: true})
	if err != nil {
		b.Fatal(err)
	}
	fn := &Wasm{In: in, Agg: true}
	const n = 2500
	groups := make([]AddGroup, n)
	for i := range groups {
		k := fmt.Appendf(nil, "%d", 1000+i/5)
		groups[i] = AddGroup{Key: k, Acc: []byte{1, 0, 0, 0, 0, 0, 0, 0}, HasAcc: i%2 == 0, Elems: []Elem{{Value: k, Timestamp: 5}}}
	}
	b.ResetTimer()
	c0 := cpuNanos()
	for range b.N {
		if _, err := fn.Add(ctx, groups); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuNanos()-c0)/float64(b.N)/n, "cpu-ns/group")
}

// cpuNanos returns the CPU time the process has used.
func cpuNanos() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano() + ru.Stime.Nano())
}
