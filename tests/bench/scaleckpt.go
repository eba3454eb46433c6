package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/floe-stream/floe/host/task"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/snapshot"
)

// scaleCheckpointEvery is how many records keyed-count-scale counts
// between two checkpoints.
const scaleCheckpointEvery = 1_000_000

// scaleMaxChain mirrors host/task's maxChain: after a full snapshot and
// scaleMaxChain-1 deltas, the next snapshot is full again.
const scaleMaxChain = 10

// chainFile names the JSON list of the snapshot files of the latest
// completed checkpoint, oldest first, in a checkpoint directory.
const chainFile = "chain.json"

// checkpointer takes checkpoints of a keyed state backend as a task does:
// the snapshot is taken between two batches and written to a file by a
// goroutine while records flow, one checkpoint at a time. A checkpoint is
// complete once chainFile names its files.
type checkpointer struct {
	state task.StateBackend
	dir   string
	chain []chainEntry
	wg    sync.WaitGroup
	err   error // err is the first error of a write, read after wg.Wait.
	// lastBytes is the size of the latest snapshot file.
	lastBytes int64
}

// chainEntry is one snapshot file of a checkpoint's chain.
type chainEntry struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// checkpoint waits for the previous checkpoint's write, takes a snapshot
// (full when the chain is empty or scaleMaxChain long) and starts writing
// it.
func (c *checkpointer) checkpoint() error {
	c.wg.Wait()
	if c.err != nil {
		return c.err
	}
	full := len(c.chain) == 0 || len(c.chain) >= scaleMaxChain
	capture, err := c.state.TakeSnapshot(full)
	if err != nil {
		return err
	}
	chain := c.chain
	if full {
		chain = nil
	}
	name := fmt.Sprintf("snapshot-%d", time.Now().UnixNano())
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		size, err := writeSnapshotFile(filepath.Join(c.dir, name), capture.Write)
		if err == nil {
			chain = append(chain, chainEntry{Name: name, Size: size})
			err = writeChain(c.dir, chain)
		}
		c.chain, c.lastBytes, c.err = chain, size, err
	}()
	return nil
}

// finish waits for the last write and returns the bytes of the latest
// checkpoint's chain and of its last file.
func (c *checkpointer) finish() (chainBytes, lastBytes int64, err error) {
	c.wg.Wait()
	for _, f := range c.chain {
		chainBytes += f.Size
	}
	return chainBytes, c.lastBytes, c.err
}

// writeSnapshotFile writes a snapshot file with fill and syncs it.
func writeSnapshotFile(path string, fill func(*snapshot.Writer) error) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := snapshot.NewWriter(f)
	err = fill(w)
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = f.Sync()
	}
	return w.Size(), errors.Join(err, f.Close())
}

// writeChain replaces dir's chainFile atomically.
func writeChain(dir string, chain []chainEntry) error {
	b, err := json.Marshal(chain)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, chainFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, chainFile))
}

// restoreRun is what the restoring child measured.
type restoreRun struct {
	Keys           int64   `json:"keys"`
	RestoreSeconds float64 `json:"restore_seconds"`
	PeakRSSBytes   int64   `json:"peak_rss_bytes"`
}

// restoreChild restores the latest checkpoint in ckDir (restoreLatest),
// checks that it holds want keys and prints a restoreRun as JSON.
func restoreChild(cfg Config, ckDir string, want int64) error {
	r, err := restoreLatest(ckDir, cfg.StateMemory)
	if err != nil {
		return err
	}
	if r.Keys != want {
		return fmt.Errorf("restored %d keys, want %d", r.Keys, want)
	}
	if r.PeakRSSBytes, err = peakRSS(); err != nil {
		return err
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, os.Stdin)
	return err
}

// restoreLatest restores the latest checkpoint in ckDir into a fresh
// pebble state that tracks its size, as a task restarted elsewhere does,
// and flushes it. The store keeps to memoryBytes (0 means the default). It
// reports the time taken and the keys restored.
func restoreLatest(ckDir string, memoryBytes int64) (restoreRun, error) {
	b, err := os.ReadFile(filepath.Join(ckDir, chainFile))
	if err != nil {
		return restoreRun{}, err
	}
	var chain []chainEntry
	if err := json.Unmarshal(b, &chain); err != nil {
		return restoreRun{}, err
	}
	dir, err := os.MkdirTemp("", "state-")
	if err != nil {
		return restoreRun{}, err
	}
	defer os.RemoveAll(dir)
	st, err := task.OpenStateWithin(jobspec.StatePebble, dir, memoryBytes)
	if err != nil {
		return restoreRun{}, err
	}
	start := time.Now()
	err = errors.Join(st.TrackSizes(), restoreChain(st, ckDir, chain), st.Flush())
	r := restoreRun{Keys: st.SizeOf(countOperator).Keys, RestoreSeconds: time.Since(start).Seconds()}
	return r, errors.Join(err, st.Close())
}

// restoreChain applies the snapshot files of chain, oldest first.
func restoreChain(st task.StateBackend, ckDir string, chain []chainEntry) error {
	all := keygroup.Range{Start: 0, End: keygroup.DefaultMaxParallelism}
	for _, f := range chain {
		file, err := os.Open(filepath.Join(ckDir, f.Name))
		if err != nil {
			return err
		}
		_, err = st.Restore(file, f.Size, all)
		if err := errors.Join(err, file.Close()); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}
