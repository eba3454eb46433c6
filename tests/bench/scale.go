package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
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
	// CheckpointBytes is the size of the latest checkpoint, all the files
	// of its chain; LastSnapshotBytes that of its last file, which the
	// checkpoint wrote.
	CheckpointBytes   int64 `json:"checkpoint_bytes"`
	LastSnapshotBytes int64 `json:"last_snapshot_bytes"`
	// RestoreSeconds is how long another process, started after this one
	// was killed, took to restore the latest checkpoint into a fresh
	// store, flush included; RestorePeakRSSBytes is its VmHWM.
	RestoreSeconds      float64 `json:"restore_seconds,omitempty"`
	RestorePeakRSSBytes int64   `json:"restore_peak_rss_bytes,omitempty"`
	// MemoryLimitBytes is the process's GOMEMLIMIT and StateBudgetBytes
	// its state store's budget (pebblekv.Options.MemoryBytes).
	MemoryLimitBytes int64 `json:"memory_limit_bytes"`
	StateBudgetBytes int64 `json:"state_budget_bytes"`
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
		r, err := runScaleChild(e.ctx, n, e.cfg.ScaleMemory)
		if err != nil {
			return Result{}, fmt.Errorf("%d keys: %w", n, err)
		}
		fmt.Fprintf(e.cfg.Log, "keyed-count-scale %d keys: %s records/s, %.0f ns CPU/record, peak RSS %d MiB, state %d MiB, "+
			"checkpoint %d MiB (last file %d MiB), restore %.1fs (peak RSS %d MiB)\n",
			n, human(r.RecordsPerSec), r.CPUPerRecordNs, r.PeakRSSBytes>>20, r.StateBytes>>20,
			r.CheckpointBytes>>20, r.LastSnapshotBytes>>20, r.RestoreSeconds, r.RestorePeakRSSBytes>>20)
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
		Extra: map[string]any{"cpu_ratio": first.CPUPerRecordNs / last.CPUPerRecordNs,
			"memory_limit_bytes": last.MemoryLimitBytes, "state_budget_bytes": last.StateBudgetBytes},
	}
	var parts []string
	for _, s := range runs {
		k := humanCount(s.Keys)
		r.Extra["records_per_sec_"+k] = s.RecordsPerSec
		r.Extra["cpu_per_record_ns_"+k] = s.CPUPerRecordNs
		r.Extra["peak_rss_bytes_"+k] = s.PeakRSSBytes
		r.Extra["state_bytes_"+k] = s.StateBytes
		r.Extra["checkpoint_bytes_"+k] = s.CheckpointBytes
		r.Extra["last_snapshot_bytes_"+k] = s.LastSnapshotBytes
		r.Extra["restore_s_"+k] = s.RestoreSeconds
		r.Extra["restore_peak_rss_bytes_"+k] = s.RestorePeakRSSBytes
		parts = append(parts, fmt.Sprintf("%s keys %s rec/s (RSS %d MiB, state %d MiB, checkpoint %d MiB, restore %.1fs)",
			k, human(s.RecordsPerSec), s.PeakRSSBytes>>20, s.StateBytes>>20, s.CheckpointBytes>>20, s.RestoreSeconds))
	}
	r.Summary = fmt.Sprintf("%s; %s/%s rate ratio %.2f, CPU per record ratio %.2f; GOMEMLIMIT %d MiB, state budget %d MiB",
		strings.Join(parts, ", "), humanCount(last.Keys), humanCount(first.Keys), r.Ratio, r.Extra["cpu_ratio"],
		last.MemoryLimitBytes>>20, last.StateBudgetBytes>>20)
	return r
}

// humanCount writes a key count as 1M, 20M or 500K.
func humanCount(n int) string {
	if n%1_000_000 == 0 {
		return fmt.Sprintf("%dM", n/1_000_000)
	}
	return fmt.Sprintf("%dK", n/1000)
}

// runScaleChild runs this binary with -scale-child n in a scratch
// directory of its own, decodes the line of JSON it prints, kills it with
// SIGKILL, and restores its latest checkpoint in another child
// (-scale-restore n), which it times.
func runScaleChild(ctx context.Context, n int, memLimit int64) (scaleRun, error) {
	work, err := os.MkdirTemp("", "floe-scale-")
	if err != nil {
		return scaleRun{}, err
	}
	defer os.RemoveAll(work)
	var r scaleRun
	env := append(os.Environ(), "TMPDIR="+work, fmt.Sprintf("GOMEMLIMIT=%d", memLimit))
	if err := runUntilLine(ctx, env, &r, "-scale-child", strconv.Itoa(n), "-scale-dir", work); err != nil {
		return scaleRun{}, err
	}
	var rr restoreRun
	if err := runUntilLine(ctx, env, &rr, "-scale-restore", strconv.Itoa(n), "-scale-dir", work); err != nil {
		return scaleRun{}, fmt.Errorf("restore: %w", err)
	}
	r.RestoreSeconds, r.RestorePeakRSSBytes = rr.RestoreSeconds, rr.PeakRSSBytes
	return r, nil
}

// runUntilLine runs this binary with args and environment env, decodes
// the first line it prints into v and then kills it with SIGKILL: a child
// that is done waits for that.
func runUntilLine(ctx context.Context, env []string, v any, args ...string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = env
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	line, readErr := bufio.NewReader(stdout).ReadBytes('\n')
	killErr := cmd.Process.Signal(syscall.SIGKILL)
	waitErr := cmd.Wait()
	if readErr != nil {
		return fmt.Errorf("%v (%v, %v): %s", readErr, killErr, waitErr, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("child output %q: %w", line, err)
	}
	return nil
}

// scaleChild is the child's side: count n records of n distinct keys, as
// the one Wasm subtask of a keyed count that tracks its state's size and
// takes a checkpoint into ckDir every scaleCheckpointEvery records and at
// the end, print a scaleRun as JSON and wait to be killed.
func scaleChild(ctx context.Context, cfg Config, n int, ckDir string) error {
	e, err := newEnv(ctx, cfg)
	if err != nil {
		return err
	}
	r, err := countAndCheckpoint(ctx, e, n, ckDir)
	if err := errors.Join(err, e.close()); err != nil {
		return err
	}
	r.MemoryLimitBytes, r.StateBudgetBytes = debug.SetMemoryLimit(-1), cfg.StateMemory
	if r.PeakRSSBytes, err = peakRSS(); err != nil {
		return err
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		return err
	}
	// NB: the parent kills this process with SIGKILL once it has read the
	// line, and restores the latest checkpoint in another one.
	_, err = io.Copy(io.Discard, os.Stdin)
	return err
}

// countAndCheckpoint runs the keyed count of scaleChild in e.
func countAndCheckpoint(ctx context.Context, e *env, n int, ckDir string) (scaleRun, error) {
	op, err := openCountWasm(e)(ctx)
	if err != nil {
		return scaleRun{}, err
	}
	st := op.(*wasmOperator).state
	if err := st.backend.TrackSizes(); err != nil {
		return scaleRun{}, errors.Join(err, op.Close())
	}
	st.backend.TrackChanges()
	ck := &checkpointer{state: st.backend, dir: ckDir}
	runtime.GC()
	cpu0, start := cpuTime(), time.Now()
	err = countDistinct(ctx, op, n, scaleCheckpointEvery, ck.checkpoint)
	if err == nil {
		err = ck.checkpoint()
	}
	chainBytes, lastBytes, ckErr := ck.finish()
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	if err := errors.Join(err, ckErr); err != nil {
		return scaleRun{}, errors.Join(err, op.Close())
	}
	r := scaleRun{Keys: n, RecordsPerSec: float64(n) / elapsed.Seconds(), CPUPerRecordNs: float64(cpu.Nanoseconds()) / float64(n),
		CheckpointBytes: chainBytes, LastSnapshotBytes: lastBytes}
	if got := st.backend.SizeOf(countOperator).Keys; got != int64(n) {
		err = fmt.Errorf("state holds %d keys, want %d", got, n)
	}
	if err == nil {
		r.StateBytes, err = dirBytes(st.dir)
	}
	return r, errors.Join(err, op.Close())
}

// countDistinct feeds op n records with distinct keys "w<8 hex digits>",
// built batch by batch so that the input takes no memory, calls tick
// between batches whenever every more records have gone through, and
// flushes. NB: i times an odd constant is a bijection of uint32, so the
// keys are distinct and spread over the key space.
func countDistinct(ctx context.Context, op operator, n, every int, tick func() error) error {
	var in, out record.Batch
	key := make([]byte, 0, 9)
	next := every
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
		if i >= next && i < n {
			next += every
			if err := tick(); err != nil {
				return err
			}
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
