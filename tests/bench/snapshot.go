package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/floe-stream/floe/host/task"
	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/snapshot"
)

const (
	// snapKeys is the number of keys of the checkpointed state; each holds
	// an 8-byte counter.
	snapKeys = 1_000_000
	// snapChanged is the share of keys changed between a full snapshot and
	// the delta after it.
	snapChanged = 0.01
)

// snapRun is one snapshot, written to a local file and uploaded, as a
// task takes it (host/task's writeSnapshot and upload).
type snapRun struct {
	bytes         int64
	write, upload time.Duration
}

func (s snapRun) total() time.Duration { return s.write + s.upload }

// benchCheckpoint1MKeys checkpoints a pebble state of 1M keys of 8-byte
// counters that tracks its changes: a full snapshot, then 1% of the keys
// changed and a delta snapshot, each written to a local file and uploaded
// to checkpoint storage, -runs times over the same state. The row's
// records/s is keys snapshotted per second by the full checkpoint (write
// plus upload); its baseline is the same state's keys per second of the
// incremental one, so its ratio is incremental time / full time.
func benchCheckpoint1MKeys(e *env) (Result, error) {
	store, err := e.openCkptStore()
	if err != nil {
		return Result{}, err
	}
	defer store.close()
	st, err := openPebble(e)
	if err != nil {
		return Result{}, err
	}
	defer st.close()
	st.backend.TrackChanges()
	counts, err := st.backend.Value(countOperator + "/count")
	if err != nil {
		return Result{}, err
	}
	r := rand.New(rand.NewPCG(7, 0x736e6170))
	keys := distinctKeys(r, snapKeys)
	kgs := make([]uint16, len(keys))
	for i, k := range keys {
		kgs[i] = keygroup.Of(k, keygroup.DefaultMaxParallelism)
	}
	var enc [8]byte
	put := func(i int, n uint64) error {
		binary.LittleEndian.PutUint64(enc[:], n)
		return counts.Put(kgs[i], keys[i], enc[:])
	}
	start := time.Now()
	for i := range keys {
		if err := put(i, 1); err != nil {
			return Result{}, err
		}
	}
	load := time.Since(start)
	changed := int(snapChanged * snapKeys)
	perm := r.Perm(len(keys))
	var fulls, deltas []snapRun
	for run := range e.cfg.Runs {
		id := int64(2*run + 1)
		full, err := takeSnapshot(e, store, st.backend, true, id)
		if err != nil {
			return Result{}, fmt.Errorf("full snapshot: %w", err)
		}
		for _, i := range perm[(run*changed)%len(perm):][:changed] {
			if err := put(i, uint64(run+2)); err != nil {
				return Result{}, err
			}
		}
		delta, err := takeSnapshot(e, store, st.backend, false, id+1)
		if err != nil {
			return Result{}, fmt.Errorf("delta snapshot: %w", err)
		}
		fmt.Fprintf(e.cfg.Log, "checkpoint-1m-keys run %d: full %s in %s (write %s, upload %s); delta of %d keys %s in %s (write %s, upload %s)\n",
			run+1, mib(full.bytes), ms(full.total()), ms(full.write), ms(full.upload),
			changed, mib(delta.bytes), ms(delta.total()), ms(delta.write), ms(delta.upload))
		fulls, deltas = append(fulls, full), append(deltas, delta)
	}
	full, delta := medianSnap(fulls), medianSnap(deltas)
	res := Result{Name: "checkpoint-1m-keys", Baseline: "incremental (same state)",
		RecordsPerSec:       snapKeys / full.total().Seconds(),
		NativeRecordsPerSec: snapKeys / delta.total().Seconds()}
	res.Ratio = res.RecordsPerSec / res.NativeRecordsPerSec
	sizeRatio := float64(delta.bytes) / float64(full.bytes)
	res.Extra = map[string]any{
		"storage": store.kind, "keys": snapKeys, "changed_keys": changed, "load_s": load.Seconds(),
		"full_bytes": full.bytes, "full_write_ms": msf(full.write), "full_upload_ms": msf(full.upload), "full_ms": msf(full.total()),
		"incremental_bytes": delta.bytes, "incremental_write_ms": msf(delta.write), "incremental_upload_ms": msf(delta.upload),
		"incremental_ms": msf(delta.total()), "incremental_to_full_bytes": sizeRatio,
		"incremental_to_full_time":         delta.total().Seconds() / full.total().Seconds(),
		"target_incremental_to_full_bytes": 0.1, "target_incremental_ms": 1000,
	}
	res.Summary = fmt.Sprintf("storage %s; full snapshot of %d keys %s in %s (write %s + upload %s); delta of %d changed keys %s in %s (write %s + upload %s): %.2f%% of the full size, %.1f%% of its time (targets < 10%%, < 1 s)",
		store.kind, snapKeys, mib(full.bytes), ms(full.total()), ms(full.write), ms(full.upload),
		changed, mib(delta.bytes), ms(delta.total()), ms(delta.write), ms(delta.upload), 100*sizeRatio, 100*res.Ratio)
	return res, nil
}

// takeSnapshot writes b's state (full, or what changed since the last
// snapshot) to a temporary file, uploads it to checkpoint id's snapshot
// path, and times both steps.
func takeSnapshot(e *env, store *ckptStore, b task.StateBackend, full bool, id int64) (snapRun, error) {
	var s snapRun
	start := time.Now()
	f, err := os.CreateTemp(e.dir, "snapshot-*")
	if err != nil {
		return s, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	w := snapshot.NewWriter(f)
	err = b.WriteSnapshot(w, full)
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return s, err
	}
	s.write, s.bytes = time.Since(start), w.Size()
	start = time.Now()
	if _, err := f.Seek(0, 0); err != nil {
		return s, err
	}
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	err = store.Put(ctx, ckmeta.SnapshotPath("bench", 1, 0, 1, id), f, s.bytes)
	s.upload = time.Since(start)
	return s, err
}

// medianSnap returns the run of median total time.
func medianSnap(runs []snapRun) snapRun {
	totals := make([]float64, len(runs))
	for i, r := range runs {
		totals[i] = r.total().Seconds()
	}
	m := median(totals)
	best := runs[0]
	for _, r := range runs {
		if abs(r.total().Seconds()-m) < abs(best.total().Seconds()-m) {
			best = r
		}
	}
	return best
}

func abs(x float64) float64 { return max(x, -x) }

func mib(n int64) string          { return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20)) }
func ms(d time.Duration) string   { return fmt.Sprintf("%.0fms", msf(d)) }
func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
