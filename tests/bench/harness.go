package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/floe-stream/floe/host/taskmanager"

	"github.com/floe-stream/floe/host/record"
)

// Result is one row of bench-results.json.
type Result struct {
	Name                string  `json:"name"`
	RecordsPerSec       float64 `json:"records_per_sec"`
	NativeRecordsPerSec float64 `json:"native_records_per_sec"`
	// Ratio is RecordsPerSec / NativeRecordsPerSec.
	Ratio float64 `json:"ratio"`
	// Baseline names what NativeRecordsPerSec measured when it is not the
	// operator written in native Go: "one process", "no checkpoints".
	Baseline string `json:"baseline,omitempty"`
	// Extra holds a benchmark's other measurements, each name ending in
	// its unit: "p99_ms", "full_bytes".
	Extra map[string]any `json:"extra,omitempty"`
	// Summary says what the row measured, in a line for people.
	Summary string `json:"summary,omitempty"`
	// Error is why the row has no figures: the benchmark failed.
	Error string `json:"error,omitempty"`
}

// Config is the scale of a harness run.
type Config struct {
	// Records is how many records each side processes per timed run.
	Records int
	// Keys is the number of distinct keys of keyed benchmarks.
	Keys int
	// Runs is the number of timed runs per side.
	Runs int
	// Uninterruptible runs guests without the checks that let a deadline
	// stop them (host.Config.Uninterruptible).
	Uninterruptible bool
	// Log receives progress lines.
	Log io.Writer
	// ScaleKeys are the distinct-key counts keyed-count-scale runs,
	// smallest first.
	ScaleKeys []int
	// ScaleMemory is the memory limit (GOMEMLIMIT) of each keyed-count-scale
	// process, whose state budget is what a one-slot task manager gives
	// under that limit (pebblekv.Budget).
	ScaleMemory int64
	// StateMemory is the memory budget of the pebble state the benchmarks
	// open (pebblekv.Options.MemoryBytes); 0 means its default.
	StateMemory int64
	// Runtime is handed to the in-process task managers, as floe run
	// does; nil leaves the Go runtime as it is.
	Runtime *taskmanager.Runtime
}

// benchmark is one row of the results. To add one, write its run function
// and list it in benchmarks.
type benchmark struct {
	name string
	run  func(e *env) (Result, error)
}

// rowTimeouts replace rowTimeout for rows that are slow by design.
var rowTimeouts = map[string]time.Duration{"keyed-count-scale": scaleTimeout}

// benchmarks lists every benchmark, in the order they run.
func benchmarks() []benchmark {
	return []benchmark{
		{"q1-map", benchQ1},
		{"keyed-count-pebble", benchKeyedCount},
		{"keyed-count-scale", benchKeyedCountScale},
		{"shuffle-keyby", benchShuffle},
		{"checkpoint-1m-keys", benchCheckpoint1MKeys},
		{"checkpointed-throughput", benchCheckpointedThroughput},
		{"metrics-overhead", benchMetricsOverhead},
		{"query-latency", benchQueryLatency},
		{"kafka", benchKafka},
		{"q1-map-c", sdkQ1("c")},
		{"q1-map-rust", sdkQ1("rust")},
		{"q1-map-as", sdkQ1("as")},
		{"keyed-count-pebble-c", sdkCount("c")},
		{"keyed-count-pebble-rust", sdkCount("rust")},
		{"keyed-count-pebble-as", sdkCount("as")},
		{"nexmark-q1", nexmarkRow("q1")},
		{"nexmark-q2", nexmarkRow("q2")},
		{"nexmark-q5", nexmarkRow("q5")},
		{"nexmark-q7", nexmarkRow("q7")},
		{"nexmark-q3", nexmarkRow("q3")},
		{"nexmark-q4", nexmarkRow("q4")},
		{"nexmark-q9", nexmarkRow("q9")},
		{"nexmark-q11", nexmarkRow("q11")},
		{"nexmark-q1-sql", sqlNexmarkRow("q1")},
		{"nexmark-q5-sql", sqlNexmarkRow("q5")},
		{"nexmark-q7-sql", sqlNexmarkRow("q7")},
		{"nexmark-q3-sql", sqlNexmarkJoinRow("q3")},
		{"nexmark-q4-sql", sqlNexmarkJoinRow("q4")},
		{"nexmark-q9-sql", sqlNexmarkJoinRow("q9")},
		{"nexmark-q11-sql", sqlNexmarkJoinRow("q11")},
		{"rescale-1m-keys", benchRescale},
		{"scheduler-failover", benchSchedulerFailover},
		{"autoscale-step", benchAutoscaleStep},
		{"rescale-one-operator", benchRescaleOneOperator},
	}
}

// operator is one implementation under test, set up for one run: a Wasm
// instance or a native function, with its state.
type operator interface {
	// Process runs the operator over in and appends its output to out.
	Process(ctx context.Context, in, out *record.Batch) error
	// Finish ends the run, e.g. flushes state as a checkpoint would. It is
	// part of the timed run.
	Finish() error
	// Close releases the operator and its state. It is not timed.
	Close() error
}

// opener sets up a fresh operator for a run.
type opener func(ctx context.Context) (operator, error)

// workload is a benchmark's input: batches processed in order, cycling
// through pool, until batches have been processed.
type workload struct {
	pool    []record.Batch
	batches int
}

// batch returns the i-th batch of the run.
func (w *workload) batch(i int) *record.Batch { return &w.pool[i%len(w.pool)] }

// records returns the number of records of a run.
func (w *workload) records() int {
	n := 0
	for i := range w.batches {
		n += w.batch(i).Len()
	}
	return n
}

// compare runs fresh Wasm and native operators over the first n batches of
// w and fails on the first output record where they differ.
func compare(ctx context.Context, w *workload, n int, wasm, native opener) error {
	n = min(n, w.batches)
	a, err := collect(ctx, w, n, wasm)
	if err != nil {
		return fmt.Errorf("wasm: %w", err)
	}
	b, err := collect(ctx, w, n, native)
	if err != nil {
		return fmt.Errorf("native: %w", err)
	}
	for i := range min(len(a.Records), len(b.Records)) {
		if err := sameRecord(&a.Records[i], &b.Records[i]); err != nil {
			return fmt.Errorf("output record %d: %w", i, err)
		}
	}
	if len(a.Records) != len(b.Records) {
		return fmt.Errorf("wasm emitted %d records, native %d", len(a.Records), len(b.Records))
	}
	return nil
}

// collect runs a fresh operator over the first n batches of w and returns
// everything it emitted.
func collect(ctx context.Context, w *workload, n int, open opener) (*record.Batch, error) {
	op, err := open(ctx)
	if err != nil {
		return nil, err
	}
	var all, out record.Batch
	for i := range n {
		out.Reset()
		if err := op.Process(ctx, w.batch(i), &out); err != nil {
			return nil, errors.Join(err, op.Close())
		}
		for j := range out.Records {
			all.AppendRecord(&out.Records[j])
		}
	}
	return &all, errors.Join(op.Finish(), op.Close())
}

func sameRecord(a, b *record.Record) error {
	switch {
	case !bytes.Equal(a.Value, b.Value):
		return fmt.Errorf("wasm %q, native %q", a.Value, b.Value)
	case !bytes.Equal(a.Key, b.Key) || a.KeyGroup != b.KeyGroup:
		return fmt.Errorf("wasm key %q/%d, native %q/%d", a.Key, a.KeyGroup, b.Key, b.KeyGroup)
	case a.Timestamp != b.Timestamp:
		return fmt.Errorf("wasm timestamp %d, native %d", a.Timestamp, b.Timestamp)
	}
	return nil
}

// timeRun sets up an operator, runs it over w and returns its throughput
// in records/s. Setup and Close are not timed; Finish is.
func timeRun(ctx context.Context, w *workload, open opener) (float64, error) {
	op, err := open(ctx)
	if err != nil {
		return 0, err
	}
	// Collect the garbage of setup and of earlier runs now, not during
	// this one.
	runtime.GC()
	var out record.Batch
	records, emitted := 0, 0
	start := time.Now()
	for i := range w.batches {
		in := w.batch(i)
		out.Reset()
		if err := op.Process(ctx, in, &out); err != nil {
			return 0, errors.Join(err, op.Close())
		}
		records += in.Len()
		emitted += out.Len()
	}
	err = op.Finish()
	elapsed := time.Since(start)
	if err = errors.Join(err, op.Close()); err != nil {
		return 0, err
	}
	if emitted != records {
		return 0, fmt.Errorf("%d records in, %d out", records, emitted)
	}
	return float64(records) / elapsed.Seconds(), nil
}

// measure times cfg.Runs runs of each side, alternating them so that
// noise from the machine spreads over both, and returns the medians.
func measure(e *env, name string, w *workload, wasm, native opener) (Result, error) {
	var ws, ns []float64
	for i := range e.cfg.Runs {
		for _, s := range []struct {
			side string
			open opener
			into *[]float64
		}{{"wasm", wasm, &ws}, {"native", native, &ns}} {
			r, err := timeRun(e.ctx, w, s.open)
			if err != nil {
				return Result{}, fmt.Errorf("%s run %d: %w", s.side, i+1, err)
			}
			fmt.Fprintf(e.cfg.Log, "%s %-6s run %d: %s records/s\n", name, s.side, i+1, human(r))
			*s.into = append(*s.into, r)
		}
	}
	r := Result{Name: name, RecordsPerSec: median(ws), NativeRecordsPerSec: median(ns)}
	r.Ratio = r.RecordsPerSec / r.NativeRecordsPerSec
	return r, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0 // NB: a side that did not run (e.g. no Rust toolchain) has no median
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// printTable writes the results as an aligned table, then the summary
// line of each row that has one.
func printTable(w io.Writer, results []Result) {
	const row = "%-24s %12s %14s %7s  %s\n"
	fmt.Fprintf(w, row, "name", "rec/s", "baseline rec/s", "ratio", "baseline")
	for _, r := range results {
		base := r.Baseline
		if base == "" {
			base = "native Go"
		}
		if r.Error != "" {
			fmt.Fprintf(w, row, r.Name, "-", "-", "-", "FAILED")
			continue
		}
		fmt.Fprintf(w, row, r.Name, human(r.RecordsPerSec), human(r.NativeRecordsPerSec), fmt.Sprintf("%.2f", r.Ratio), base)
	}
	for _, r := range results {
		switch {
		case r.Error != "":
			fmt.Fprintf(w, "%s: FAILED: %s\n", r.Name, r.Error)
		case r.Summary != "":
			fmt.Fprintf(w, "%s: %s\n", r.Name, r.Summary)
		}
	}
}

// human formats a rate with three significant digits: 1.62M, 450K.
func human(x float64) string {
	unit := ""
	for _, u := range []string{"K", "M", "G"} {
		if x < 1000 {
			break
		}
		x, unit = x/1000, u
	}
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f%s", x, unit)
	case x >= 10:
		return fmt.Sprintf("%.1f%s", x, unit)
	}
	return fmt.Sprintf("%.2f%s", x, unit)
}

// writeResults writes results to path as a JSON array.
func writeResults(path string, results []Result) error {
	b, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// millis is f of each run, in milliseconds, for the medians and lists of a
// row's summary.
func millis[R any](runs []R, f func(R) time.Duration) []float64 {
	var out []float64
	for _, r := range runs {
		out = append(out, float64(f(r).Microseconds())/1000)
	}
	return out
}
