package task

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/storage/ckstore"
	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/snapshot"
	"github.com/floe-stream/floe/storage/state"
)

// maxChain is the longest chain of snapshot files a task builds: after a
// full snapshot and maxChain-1 deltas, the next snapshot is full again, so
// a restore never reads an endless history.
const maxChain = 10

// CheckpointStore is where a task uploads and downloads snapshot files.
type CheckpointStore interface {
	Put(ctx context.Context, path string, r io.Reader, size int64) error
	Get(ctx context.Context, path string) (io.ReadCloser, error)
}

// Checkpointing connects a task to its job's checkpoints. A nil
// *Checkpointing in Env means the job takes none.
type Checkpointing struct {
	Store CheckpointStore
	// RestoreStore holds the files of the checkpoint or savepoint being
	// restored; nil means Store.
	RestoreStore CheckpointStore
	JobID        string
	Attempt      int
	// TempDir holds snapshot files until they are uploaded.
	TempDir string
	// Ack reports the task's stored snapshot; Decline a failed one. Both
	// may be called from another goroutine than the task's.
	Ack     func(id int64, st ckmeta.SubtaskState)
	Decline func(id int64, reason string)
	// Ending reports that the task's input ended and its sink waits for
	// the job's final commit.
	Ending func()
}

// checkpointer is the checkpoint side of a running task.
type checkpointer struct {
	cfg      *Checkpointing
	triggers chan int64
	commits  chan int64
	wake     chan<- struct{}
	// sinceFull counts the snapshots taken since the last full one, 0
	// when there is none to build on; the task loop owns it.
	sinceFull int
	broken    atomic.Bool // a snapshot failed: the next one is full
	// prev is closed when the latest snapshot's background job is done;
	// each job waits for the one before, so that files join the chain and
	// checkpoints are acknowledged in order.
	prev chan struct{}
	// chain and failed belong to the background jobs: the files a delta
	// builds on, and whether one of them failed since the last full
	// snapshot, so that the deltas on it cannot be restored.
	chain  []ckmeta.File
	failed bool
	// alignStart is when the checkpoint being aligned saw its first
	// barrier.
	alignStart time.Time
	// triggered is the newest checkpoint the task was triggered for: a
	// trigger repeated (for an ending task on the same task manager) is
	// not taken twice.
	triggered atomic.Int64
	// ending is set once the task's input ended and its sink holds its
	// final output for the job's final commit: it is then triggered
	// directly and acknowledges with that final state.
	ending atomic.Bool
}

func newCheckpointer(cfg *Checkpointing, wake chan<- struct{}) *checkpointer {
	return &checkpointer{cfg: cfg, triggers: make(chan int64, 16), commits: make(chan int64, 64), wake: wake}
}

func (c *checkpointer) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// TriggerCheckpoint asks a source task, or a task whose input ended and
// that waits for the job's final commit, to take checkpoint id. It returns
// false when the task cannot take it now, and true without taking it again
// for an id it was already triggered for, and false before the task is
// open.
func (t *Task) TriggerCheckpoint(id int64) bool {
	// ready orders this after open, which sets ckpt and source: a task
	// manager lists a task before it is open.
	if !t.ready.Load() || t.ckpt == nil || (t.source == nil && !t.ckpt.ending.Load()) {
		return false
	}
	for {
		last := t.ckpt.triggered.Load()
		if id <= last {
			return true
		}
		if t.ckpt.triggered.CompareAndSwap(last, id) {
			break
		}
	}
	select {
	case t.ckpt.triggers <- id:
		t.ckpt.poke()
		return true
	default:
		return false
	}
}

// NotifyCheckpointComplete tells the task that checkpoint id is complete.
func (t *Task) NotifyCheckpointComplete(id int64) {
	if t.ckpt == nil {
		return
	}
	select {
	case t.ckpt.commits <- id:
		t.ckpt.poke()
	default:
		// The buffer holds many ids; a newer one covers a dropped one.
	}
}

// serviceCheckpoints handles the state lookups, checkpoint triggers and
// commit notifications that arrived since the last call. The task loop
// calls it between batches.
func (t *Task) serviceCheckpoints(ctx context.Context) error {
	// NB: a task at full speed would keep its P until preempted (10ms);
	// yielding once a batch lets state lookups, gRPC and heartbeats run
	// within a batch's time when both cores are busy.
	runtime.Gosched()
	t.serviceQueries()
	if err := t.serviceTimers(ctx); err != nil {
		return err
	}
	if t.ckpt == nil {
		return nil
	}
	for {
		select {
		case id := <-t.ckpt.triggers:
			if err := t.snapshot(ctx, id, t.env.Now()); err != nil {
				return err
			}
		case id := <-t.ckpt.commits:
			if err := t.commit(id); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

func (t *Task) commit(id int64) error {
	if cs, ok := t.source.(checkpointedSource); ok {
		if err := cs.CheckpointComplete(id); err != nil {
			return err
		}
	}
	if tx, ok := t.sink.(connector.Transactional); ok {
		return tx.Commit(id)
	}
	return nil
}

// checkpointedSource is a source that acts when a checkpoint completes, so
// it is told which checkpoint each position is for: the Kafka source
// commits the offsets of a completed checkpoint to its consumer group.
type checkpointedSource interface {
	// PositionFor is Position for checkpoint id.
	PositionFor(id int64) ([][]byte, error)
	// CheckpointComplete tells that checkpoint id completed.
	CheckpointComplete(id int64) error
}

// position returns the source's position for checkpoint id.
func (t *Task) position(id int64) ([][]byte, error) {
	if cs, ok := t.source.(checkpointedSource); ok {
		return cs.PositionFor(id)
	}
	return t.source.Position()
}

// keyGroups is the key-group range this subtask owns.
func (t *Task) keyGroups() keygroup.Range {
	return keygroup.RangeFor(t.spec.Plan.Job.MaxParallelism, t.stage.Parallelism, t.spec.Subtask)
}

// snapshot takes checkpoint id: it sends the barrier on, records the
// source's position, seals the sink's output and captures the keyed state
// (captureState), and leaves writing the snapshot file, the upload and the
// acknowledgement to a background job so that records keep flowing. The
// jobs run one after another, in checkpoint order.
func (t *Task) snapshot(ctx context.Context, id int64, alignStart time.Time) error {
	start := t.env.Now()
	suspend := t.suspending(id)
	if t.router != nil {
		if err := t.router.Barrier(ctx, id, suspend); err != nil {
			return err
		}
	}
	st := ckmeta.SubtaskState{Stage: t.spec.Stage, Subtask: t.spec.Subtask, KeyGroups: t.keyGroups(),
		AlignmentMillis: start.Sub(alignStart).Milliseconds()}
	t.Metrics.snapshotted(start.Sub(alignStart))
	var err error
	if t.source != nil {
		if st.Source, err = t.position(id); err != nil {
			return fmt.Errorf("checkpoint %d: source position: %w", id, err)
		}
	}
	st.Operator = t.operatorState()
	if tx, ok := t.sink.(connector.Transactional); ok {
		if st.Sink, err = tx.PreCommit(id); err != nil {
			return fmt.Errorf("checkpoint %d: %w", id, err)
		}
	}
	var snap *keyedSnapshot
	if t.state != nil {
		// NB: a partial rescale's checkpoint is full, so that the stage it
		// redeploys restores one snapshot, not a chain of deltas, each
		// of which rewrites most keys when they are spread (RATIONALE.md).
		if snap, err = t.captureState(id, suspend); err != nil {
			t.ckpt.broken.Store(true)
			t.ckpt.cfg.Decline(id, err.Error())
			return nil
		}
	}
	took := t.env.Now().Sub(start)
	st.SyncMillis = took.Milliseconds()
	// NB: before the background job, whose acknowledgement may come first.
	t.Metrics.SnapshotNanos.Add(int64(took))
	prev, done := t.ckpt.prev, make(chan struct{})
	t.ckpt.prev = done
	t.spawn(func() {
		defer close(done)
		if prev != nil {
			<-prev
		}
		t.finishSnapshot(id, snap, st)
	})
	if suspend {
		return t.suspended(ctx, id)
	}
	return nil
}

// ending makes the task, whose input ended and whose sink sealed its last
// output for the job's final commit, take checkpoints as a finished task:
// once the snapshots in flight are acknowledged, it is triggered directly
// and acknowledges with ackEnded.
func (t *Task) ending() {
	if prev := t.ckpt.prev; prev != nil {
		<-prev
	}
	t.ckpt.ending.Store(true)
}

// ackEnded acknowledges checkpoint id for a task that is ending: its sink's
// final state and a source's spent splits, marked finished, and no keyed
// state (see ckmeta.SubtaskState.Finished).
func (t *Task) ackEnded(id int64, final []byte) error {
	st := ckmeta.SubtaskState{Stage: t.spec.Stage, Subtask: t.spec.Subtask, KeyGroups: t.keyGroups(), Sink: final, Finished: true}
	if t.source != nil {
		var err error
		if st.Source, err = t.position(id); err != nil {
			return fmt.Errorf("checkpoint %d: source position: %w", id, err)
		}
	}
	t.ckpt.cfg.Ack(id, st)
	return nil
}

// keyedSnapshot is the keyed state of a checkpoint between the task loop,
// which takes it, and the background job that writes and uploads it.
type keyedSnapshot struct {
	full    bool
	capture *state.Capture
}

// captureState is the synchronous part of a snapshot: it takes the state
// out of the store (state.Backend.TakeSnapshot), full when asked, when
// there is no chain to build on, the chain is long, or a snapshot failed;
// a delta otherwise. finishSnapshot writes it while records flow.
func (t *Task) captureState(id int64, full bool) (*keyedSnapshot, error) {
	c := t.ckpt
	full = c.broken.Swap(false) || full || c.sinceFull == 0 || c.sinceFull >= maxChain
	t.stateGate.lock()
	err := t.beforeSnapshot()
	var capture *state.Capture
	if err == nil {
		capture, err = t.state.TakeSnapshot(full)
	}
	t.stateGate.unlock()
	if err != nil {
		return nil, fmt.Errorf("checkpoint %d: taking snapshot: %w", id, err)
	}
	if full {
		c.sinceFull = 0
	}
	c.sinceFull++
	return &keyedSnapshot{full: full, capture: capture}, nil
}

// preSnapshot is an operator that keeps some of its keyed state in memory
// and writes it to the state backend when asked, before a snapshot (a
// window operator's live windows: window.Operator.BeforeSnapshot).
type preSnapshot interface {
	BeforeSnapshot() error
}

// beforeSnapshot has the operators that keep keyed state in memory write
// it to the state backend, so that the snapshot taken next holds it. The
// caller holds the state gate.
func (t *Task) beforeSnapshot() error {
	for _, op := range t.ops {
		if p, ok := op.(preSnapshot); ok {
			if err := p.BeforeSnapshot(); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeLocal writes a snapshot file with fill to the temporary directory
// and returns its name and size.
func (t *Task) writeLocal(fill func(w *snapshot.Writer) error) (string, int64, error) {
	f, err := os.CreateTemp(t.ckpt.cfg.TempDir, "snapshot-*")
	if err != nil {
		return "", 0, err
	}
	w := snapshot.NewWriter(f)
	err = fill(w)
	if err == nil {
		err = w.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", 0, err
	}
	return f.Name(), w.Size(), nil
}

// finishSnapshot runs in the background, after the previous checkpoint's
// job: it writes the keyed state to a local file, adds the file to the chain,
// uploads it and acknowledges. A delta whose chain lost a file declines:
// the next snapshot is full (broken).
func (t *Task) finishSnapshot(id int64, snap *keyedSnapshot, st ckmeta.SubtaskState) {
	c := t.ckpt
	if snap != nil {
		if err := t.storeKeyed(id, snap, &st); err != nil {
			c.failed = true
			c.broken.Store(true)
			c.cfg.Decline(id, err.Error())
			return
		}
	}
	st.Keyed = c.chain
	for _, f := range st.Keyed {
		st.FullBytes += f.Size
	}
	c.cfg.Ack(id, st)
}

// storeKeyed writes snap to a local file, uploads it and adds it to the
// chain.
func (t *Task) storeKeyed(id int64, snap *keyedSnapshot, st *ckmeta.SubtaskState) error {
	c := t.ckpt
	if snap.full {
		c.chain, c.failed = nil, false
	} else if c.failed {
		return errors.Join(fmt.Errorf("checkpoint %d: an earlier snapshot of its chain failed", id), snap.capture.Discard())
	}
	local, size, err := t.writeLocal(snap.capture.Write)
	if err != nil {
		return fmt.Errorf("checkpoint %d: writing snapshot: %w", id, errors.Join(err, snap.capture.Discard()))
	}
	defer os.Remove(local)
	file := ckmeta.File{Path: ckmeta.SnapshotPath(c.cfg.JobID, t.spec.Stage, t.spec.Subtask, c.cfg.Attempt, id),
		Size: size, Full: snap.full}
	if err := t.put(local, file.Path); err != nil {
		return fmt.Errorf("uploading %s: %w", file.Path, err)
	}
	c.chain = append(slices.Clip(c.chain), file)
	st.IncrementalBytes = file.Size
	return nil
}

func (t *Task) put(local, path string) error {
	f, err := os.Open(local)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return t.ckpt.cfg.Store.Put(ctx, path, f, fi.Size())
}

// restore loads the task's share of a checkpoint: keyed state of the key
// groups it owns, the source's position and the sink's files to commit.
func (t *Task) restore(ctx context.Context, r *ckmeta.Restore) error {
	if t.state != nil {
		for _, share := range r.Keyed {
			for _, f := range share.Files {
				if err := t.restoreFile(ctx, f, share.KeyGroups); err != nil {
					if unreadable(err) {
						return fmt.Errorf("%s: %s: %w", ckmeta.Unreadable(r.CheckpointID), f.Path, err)
					}
					return fmt.Errorf("restoring checkpoint %d: %s: %w", r.CheckpointID, f.Path, err)
				}
			}
		}
		if r.Store == "" {
			// A chain in another store (a savepoint) cannot be extended
			// with deltas here: the next snapshot is full.
			t.ckpt.chain, t.ckpt.sinceFull = r.Chain, len(r.Chain)
		}
	}
	if t.source != nil && r.Source != nil {
		if err := t.source.Seek(r.Source); err != nil {
			return fmt.Errorf("restoring checkpoint %d: source position: %w", r.CheckpointID, err)
		}
	}
	if tx, ok := t.sink.(connector.Transactional); ok {
		if err := tx.Recover(r.Sink); err != nil {
			return fmt.Errorf("restoring checkpoint %d: %w", r.CheckpointID, err)
		}
	}
	return nil
}

// unreadable tells a checkpoint whose files are missing or corrupt, which
// no retry can restore, from one that failed for a reason that may pass (a
// store or a broker that is down).
func unreadable(err error) bool {
	return errors.Is(err, ckstore.ErrNotFound) || errors.Is(err, ckstore.ErrSizeMismatch) ||
		errors.Is(err, snapshot.ErrCorrupt) || errors.Is(err, state.ErrCorrupt)
}

func (t *Task) restoreFile(ctx context.Context, f ckmeta.File, rng keygroup.Range) error {
	store := t.ckpt.cfg.RestoreStore
	if store == nil {
		store = t.ckpt.cfg.Store
	}
	if rr, ok := store.(rangeGetter); ok {
		// Read only the index and the blocks of the key groups this
		// subtask owns.
		_, err := t.state.Restore(&objectReaderAt{ctx: ctx, rr: rr, path: f.Path}, f.Size, rng)
		return err
	}
	rc, err := store.Get(ctx, f.Path)
	if err != nil {
		return err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return err
	}
	if int64(len(b)) != f.Size {
		return fmt.Errorf("%w: object of %d bytes, the checkpoint recorded %d", ckstore.ErrSizeMismatch, len(b), f.Size)
	}
	_, err = t.state.Restore(bytes.NewReader(b), int64(len(b)), rng)
	return err
}

// rangeGetter is a store that reads parts of objects.
type rangeGetter interface {
	GetRange(ctx context.Context, path string, off, n int64) (io.ReadCloser, error)
}

// objectReaderAt reads an object in checkpoint storage by ranges.
type objectReaderAt struct {
	ctx  context.Context
	rr   rangeGetter
	path string
}

func (o *objectReaderAt) ReadAt(p []byte, off int64) (int, error) {
	rc, err := o.rr.GetRange(o.ctx, o.path, off, int64(len(p)))
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	return io.ReadFull(rc, p)
}
