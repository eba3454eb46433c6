package main

import (
	"context"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"unsafe"

	"github.com/floe-stream/floe/host/record"
)

// BenchmarkQ1ThreadCPU runs q1 in Wasm and natively, alternating, and
// reports each side's CPU time of the running thread per record and their
// ratio (native over Wasm, as the q1-map row reports): on a loaded
// machine, thread CPU time is less noisy than the wall clock.
func BenchmarkQ1ThreadCPU(b *testing.B) {
	forEachMode(b, func(b *testing.B, e *env) {
		w := q1Workload(q1PoolRecords)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var ws, ns []float64
		for b.Loop() {
			ws = append(ws, threadNsPerRecord(b, w, openWasm(e, "q1", q1Config(), false)))
			ns = append(ns, threadNsPerRecord(b, w, openQ1Native))
		}
		wm, nm := medianOf(ws), medianOf(ns)
		b.ReportMetric(wm, "wasm-ns/record")
		b.ReportMetric(nm, "native-ns/record")
		b.ReportMetric(nm/wm, "ratio")
	})
}

// threadNsPerRecord runs one pass over w's pool and returns the thread's
// CPU time per record. The caller has locked its OS thread.
func threadNsPerRecord(b *testing.B, w *workload, open opener) float64 {
	ctx := context.Background()
	op, err := open(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer op.Close()
	runtime.GC()
	var out record.Batch
	records := 0
	t0 := threadCPU()
	for i := range w.pool {
		out.Reset()
		if err := op.Process(ctx, &w.pool[i], &out); err != nil {
			b.Fatal(err)
		}
		records += w.pool[i].Len()
	}
	return float64(threadCPU()-t0) / float64(records)
}

// threadCPU returns the calling thread's CPU time in nanoseconds.
func threadCPU() int64 {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		panic(errno)
	}
	return ts.Nano()
}

func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
