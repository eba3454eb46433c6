// Command bench measures Floe's WebAssembly operators against the same logic
// written as native Go functions, in one process, and writes the results as
// JSON (`make bench`).
//
// Every benchmark runs an operator twice over the same pre-built record
// batches: once as a Wasm module on one host.Instance (one subtask), once as
// a native function filling a record.Batch the same way. Before timing, it
// checks that both sides produce the same output. Each side runs -runs times,
// alternating with the other, and the median run is reported.
//
//	go run ./tests/bench -out bench-results.json
//	go run ./tests/bench -only keyed-count-pebble -records 1000000
//	go run ./tests/bench -uninterruptible
//	go run ./tests/bench -only keyed-count-scale -scale-keys 1000000,5000000,20000000
//
// Guests run interruptible by default, as jobs do: wazero then checks for a
// passed deadline at every loop header, which Go guests, whose every
// function body is a loop, pay on each call. -uninterruptible measures them
// without (host.Config.Uninterruptible).
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/floe-stream/floe/host/taskmanager"
	"github.com/floe-stream/floe/storage/kv/pebblekv"
)

func main() {
	out := flag.String("out", "bench-results.json", "write the results as JSON to this file; empty for none")
	only := flag.String("only", "", "run only the benchmarks with these comma-separated names")
	records := flag.Int("records", 4_000_000, "records each side processes per run")
	keys := flag.Int("keys", 1_000_000, "distinct keys of the keyed benchmarks")
	runs := flag.Int("runs", 3, "timed runs per side; the median is reported")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	unint := flag.Bool("uninterruptible", false, "run guests without deadline checks (host.Config.Uninterruptible)")
	scaleKeys := flag.String("scale-keys", "1000000,5000000,20000000", "comma-separated distinct-key counts of keyed-count-scale, smallest first")
	scaleChildKeys := flag.Int("scale-child", 0, "internal: run one keyed-count-scale size in this process and print it as JSON")
	scaleRestoreKeys := flag.Int("scale-restore", 0, "internal: restore keyed-count-scale's latest checkpoint, which must hold this many keys")
	scaleMemory := flag.Int64("scale-memory", 2<<30, "memory limit (GOMEMLIMIT) in bytes of each keyed-count-scale process; the state gets a one-slot task manager's budget of it")
	scaleDir := flag.String("scale-dir", "", "internal: the checkpoint directory of -scale-child and -scale-restore")
	flag.Parse()
	// As floe run and floe taskmanager do: the jobs here run in-process.
	cfg := Config{Records: *records, Keys: *keys, Runs: *runs, Uninterruptible: *unint, Log: os.Stderr,
		Runtime: taskmanager.TuneRuntime(), ScaleMemory: *scaleMemory}
	var err error
	if *scaleChildKeys > 0 || *scaleRestoreKeys > 0 {
		// As a task manager with one slot, under the GOMEMLIMIT that
		// the parent set.
		cfg.StateMemory = pebblekv.Budget(debug.SetMemoryLimit(-1), 1)
	}
	switch cfg.ScaleKeys, err = parseCounts(*scaleKeys); {
	case err != nil:
	case *scaleChildKeys > 0:
		err = profiled(*cpuprofile, func() error { return scaleChild(context.Background(), cfg, *scaleChildKeys, *scaleDir) })
	case *scaleRestoreKeys > 0:
		err = restoreChild(cfg, *scaleDir, int64(*scaleRestoreKeys))
	default:
		err = profiled(*cpuprofile, func() error { return run(context.Background(), cfg, *only, *out) })
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// parseCounts parses a comma-separated list of positive counts.
func parseCounts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad count %q in %q", f, s)
		}
		out = append(out, n)
	}
	return out, nil
}

// run runs the selected benchmarks, prints the table and writes the JSON.
func run(ctx context.Context, cfg Config, only, out string) error {
	if cfg.Records < 1 || cfg.Keys < 1 || cfg.Runs < 1 {
		return fmt.Errorf("-records, -keys and -runs must be at least 1")
	}
	selected, err := selectBenchmarks(benchmarks(), only)
	if err != nil {
		return err
	}
	e, err := newEnv(ctx, cfg)
	if err != nil {
		return err
	}
	defer e.close()
	// A failed row is reported and the others still run: one slow or
	// broken benchmark must not hide every figure of a long run.
	var results []Result
	var failed []error
	for _, b := range selected {
		fmt.Fprintf(cfg.Log, "== %s\n", b.name)
		stop := watch(b.name, cmp.Or(rowTimeouts[b.name], rowTimeout), cfg.Log)
		r, err := b.run(e)
		stop()
		if err != nil {
			fmt.Fprintf(cfg.Log, "%s failed: %v\n", b.name, err)
			failed = append(failed, fmt.Errorf("%s: %w", b.name, err))
			r = Result{Name: b.name, Error: err.Error()}
		}
		results = append(results, r)
	}
	mode := "interruptible (the host's default)"
	if cfg.Uninterruptible {
		mode = "uninterruptible"
	}
	fmt.Printf("median of %d runs (operator rows: %d records each); guests %s\n", cfg.Runs, cfg.Records, mode)
	printTable(os.Stdout, results)
	if out != "" {
		if err := writeResults(out, results); err != nil {
			failed = append(failed, err)
		}
	}
	return errors.Join(failed...)
}

// profiled runs fn, writing a CPU profile to path unless it is empty.
func profiled(path string, fn func() error) error {
	if path == "" {
		return fn()
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return errors.Join(err, f.Close())
	}
	err = fn()
	pprof.StopCPUProfile()
	return errors.Join(err, f.Close())
}

// selectBenchmarks returns the benchmarks named in only (all when empty).
func selectBenchmarks(all []benchmark, only string) ([]benchmark, error) {
	if only == "" {
		return all, nil
	}
	var out []benchmark
	for _, name := range strings.Split(only, ",") {
		i := indexOf(all, name)
		if i < 0 {
			return nil, fmt.Errorf("no benchmark %q (have %s)", name, names(all))
		}
		out = append(out, all[i])
	}
	return out, nil
}

func indexOf(all []benchmark, name string) int {
	for i, b := range all {
		if b.name == name {
			return i
		}
	}
	return -1
}

func names(all []benchmark) string {
	var s []string
	for _, b := range all {
		s = append(s, b.name)
	}
	return strings.Join(s, ", ")
}
