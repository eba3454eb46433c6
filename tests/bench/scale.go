package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/storage/keygroup"
)

// scaleTimeout bounds keyed-count-scale, whose 20M-key size alone takes
// minutes on a small machine.
const scaleTimeout = 45 * time.Minute

// scaleRun is what one child process of keyed-count-scale measured.
type scaleRun struct {
	Keys          int     `json:"keys"`
	RecordsPerSec float64 `json:"records_per_sec"`
	// CPUPerRecordNs is the process's CPU time (user and system, Pebble's
	// background work included) per record: less sensitive than the rate
	// to other load on the machine.
	CPUPerRecordNs float64 `json:"cpu_per_record_ns"`
	// PeakRSSBytes is the child's VmHWM: the Wasm engine, the state cache,
	// Pebble and the record generator.
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
	// StateBytes is the size of the Pebble directory after the flush.
	StateBytes int64 `json:"state_bytes"`
}

// benchKeyedCountScale runs the keyed count (udfs/keyedcount in Wasm, on
// pebble state) over e.cfg.ScaleKeys sizes of all-distinct keys, each in a
// process of its own so that its peak RSS is its own, and reports the rate
// of the largest as a ratio of the smallest: state whose cost per record
// does not grow with its size keeps it near 1.
func benchKeyedCountScale(e *env) (Result, error) {
	if len(e.cfg.ScaleKeys) == 0 {
		return Result{}, errors.New("no -scale-keys")
	}
	var runs []scaleRun
	for _, n := range e.cfg.ScaleKeys {
		r, err := runScaleChild(e.ctx, n)
		if err != nil {
			return Result{}, fmt.Errorf("%d keys: %w", n, err)
		}
		fmt.Fprintf(e.cfg.Log, "keyed-count-scale %d keys: %s records/s, %.0f ns CPU/record, peak RSS %d MiB, state %d MiB\n",
			n, human(r.RecordsPerSec), r.CPUPerRecordNs, r.PeakRSSBytes>>20, r.StateBytes>>20)
		runs = append(runs, r)
	}
	return scaleResult(runs), nil
}

// scaleResult makes the row: the largest size against the smallest.
func scaleResult(runs []scaleRun) Result {
	first, last := runs[0], runs[len(runs)-1]
	r := Result{
		Name: "keyed-count-scale", RecordsPerSec: last.RecordsPerSec, NativeRecordsPerSec: first.RecordsPerSec,
		Ratio:    last.RecordsPerSec / first.RecordsPerSec,
		Baseline: fmt.Sprintf("%s keys", humanCount(first.Keys)),
		Extra:    map[string]any{"cpu_ratio": first.CPUPerRecordNs / last.CPUPerRecordNs},
	}
	var parts []string
	for _, s := range runs {
		k := humanCount(s.Keys)
		r.Extra["records_per_sec_"+k] = s.RecordsPerSec
		r.Extra["cpu_per_record_ns_"+k] = s.CPUPerRecordNs
		r.Extra["peak_rss_bytes_"+k] = s.PeakRSSBytes
		r.Extra["state_bytes_"+k] = s.StateBytes
		parts = append(parts, fmt.Sprintf("%s keys %s rec/s (RSS %d MiB, state %d MiB)",
			k, human(s.RecordsPerSec), s.PeakRSSBytes>>20, s.StateBytes>>20))
	}
	r.Summary = fmt.Sprintf("%s; %s/%s rate ratio %.2f, CPU per record ratio %.2f", strings.Join(parts, ", "),
		humanCount(last.Keys), humanCount(first.Keys), r.Ratio, r.Extra["cpu_ratio"])
	return r
}

// humanCount writes a key count as 1M, 20M or 500K.
func humanCount(n int) string {
	if n%1_000_000 == 0 {
		return fmt.Sprintf("%dM", n/1_000_000)
	}
	return fmt.Sprintf("%dK", n/1000)
}

// runScaleChild runs this binary with -scale-child n and decodes the line
// of JSON it prints.
func runScaleChild(ctx context.Context, n int) (scaleRun, error) {
	self, err := os.Executable()
	if err != nil {
		return scaleRun{}, err
	}
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, self, "-scale-child", strconv.Itoa(n))
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return scaleRun{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var r scaleRun
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return scaleRun{}, fmt.Errorf("child output %q: %w", out.String(), err)
	}
	return r, nil
}

// scaleChild is the child's side: count n records of n distinct keys, as
// the one Wasm subtask of a keyed count, and print a scaleRun as JSON.
func scaleChild(ctx context.Context, cfg Config, n int) error {
	e, err := newEnv(ctx, cfg)
	if err != nil {
		return err
	}
	defer e.close()
	op, err := openCountWasm(e)(ctx)
	if err != nil {
		return err
	}
	dir := op.(*wasmOperator).state.dir
	runtime.GC()
	cpu0, start := cpuTime(), time.Now()
	err = countDistinct(ctx, op, n)
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	if err != nil {
		return errors.Join(err, op.Close())
	}
	r := scaleRun{Keys: n, RecordsPerSec: float64(n) / elapsed.Seconds(), CPUPerRecordNs: float64(cpu.Nanoseconds()) / float64(n)}
	r.StateBytes, err = dirBytes(dir)
	if err != nil {
		return errors.Join(err, op.Close())
	}
	if err := op.Close(); err != nil {
		return err
	}
	if r.PeakRSSBytes, err = peakRSS(); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}

// countDistinct feeds op n records with distinct keys "w<8 hex digits>",
// built batch by batch so that the input takes no memory, and flushes.
// NB: i times an odd constant is a bijection of uint32, so the keys are
// distinct and spread over the key space.
func countDistinct(ctx context.Context, op operator, n int) error {
	var in, out record.Batch
	key := make([]byte, 0, 9)
	for i := 0; i < n; {
		in.Reset()
		for ; i < n && in.Len() < batchSize; i++ {
			key = fmt.Appendf(key[:0], "w%08x", uint32(i)*0x9e3779b1)
			in.AppendKeyed(key, key, int64(i), keygroup.Of(key, keygroup.DefaultMaxParallelism))
		}
		out.Reset()
		if err := op.Process(ctx, &in, &out); err != nil {
			return err
		}
		if out.Len() != in.Len() {
			return fmt.Errorf("%d records in, %d out", in.Len(), out.Len())
		}
	}
	return op.Finish()
}

// dirBytes returns the total size of the files under dir.
func dirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	return n, err
}

// peakRSS returns the process's VmHWM from /proc/self/status.
func peakRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.Join(errors.New("no VmHWM in /proc/self/status"), sc.Err())
}
