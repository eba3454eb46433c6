package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/floe-stream/floe/host/connector/stdout"
	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/minicluster"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/storage/ckstore"
	"github.com/floe-stream/floe/storage/snapshot"
)

const (
	// rescaleFrom and rescaleTo are the parallelisms before and after.
	rescaleFrom, rescaleTo = 2, 4
	// rescaleInterval is the job's checkpoint interval.
	rescaleInterval = time.Second
)

// rescaleSpec is the job of the rescale row: random keys "key-000123" of
// -keys distinct ones -> keyBy -> udfs/keyedcount's count (an 8-byte
// counter per key in pebble value state) -> stdout sink. It keeps enough
// checkpoints that the one the rescale restores from is still there when
// the benchmark reads it.
func rescaleSpec(keys int) []byte {
	return fmt.Appendf(nil, `name: rescale
parallelism: %d
maxParallelism: 128
modules: {keyedcount: keyedcount.wasm}
source: {type: generator, uid: gen, kind: random, keys: %d, size: 1}
operators:
  - {type: keyBy, uid: by-key, key: "csv:0"}
  - {type: process, uid: count, module: keyedcount, function: count}
sink: {type: stdout, uid: out}
checkpoints: {interval: %s, retain: 20}
`, rescaleFrom, keys, rescaleInterval)
}

// benchRescale runs the keyed count at parallelism 2 until every key has
// state (keys x ln(keys) records: about one key in a million missed) and a
// checkpoint taken after that has completed, then asks the scheduler to
// rescale it to 4, -runs times in the same job (between two, an untimed
// rescale back to 2 and a completed checkpoint), and measures:
//
//   - downtime from the request to the first output of the job at the new
//     parallelism: the first write of a stdout sink after the longest
//     silence of the output following the old attempt's stop. The sink
//     flushes every 64 KiB (some 4K records), so the first record was
//     processed a little earlier;
//   - the scheduler's own figures, from its "rescaled to" message:
//     "downtime" runs from the moment the rescale checkpoint completed and
//     the old attempt was stopped to the moment every new task had
//     restored its state and reported RUNNING, and "since the request"
//     from the request to that moment;
//   - the bytes each new subtask reads from checkpoint storage to restore:
//     the checkpoint's metadata gives each new subtask its share
//     (ckmeta.Metadata.RestoreFor, as the scheduler computes it), and
//     snapshot.Read over each file of the share, through the store's
//     range reads, is what the task's restore calls; the bench counts the
//     bytes those reads fetch. The task itself does not report them.
func benchRescale(e *env) (Result, error) {
	wasm, err := e.wasm("keyedcount")
	if err != nil {
		return Result{}, err
	}
	dir, err := os.MkdirTemp(e.dir, "rescale-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	out := &writeTimes{}
	c, err := minicluster.Start(e.ctx, minicluster.Config{DataDir: dir, TaskManagers: 1, Slots: rescaleTo,
		Engine: e.engine, Stdout: stdout.NewWriter(out)})
	if err != nil {
		return Result{}, err
	}
	runs, records, rate, err := e.rescaleRuns(c, dir, wasm, out)
	if err = errors.Join(err, c.Close()); err != nil {
		return Result{}, err
	}
	return rescaleResult(e.cfg.Keys, records, rate, runs), nil
}

// rescaleRuns submits the job, warms it up and rescales it -runs times.
func (e *env) rescaleRuns(c *minicluster.Cluster, dir string, wasm []byte, out *writeTimes) ([]rescaleRun, int64, float64, error) {
	id, err := c.Scheduler.Submit(e.ctx, api.Submission{Spec: rescaleSpec(e.cfg.Keys), Modules: map[string][]byte{"keyedcount": wasm}})
	if err != nil {
		return nil, 0, 0, err
	}
	records, rate, err := warmUp(e.ctx, c, id, int64(math.Ceil(float64(e.cfg.Keys)*math.Log(float64(e.cfg.Keys)))))
	if err != nil {
		return nil, records, rate, err
	}
	fmt.Fprintf(e.cfg.Log, "rescale: %d records counted at %s records/s at parallelism %d, and a checkpoint completed since\n", records, human(rate), rescaleFrom)
	var runs []rescaleRun
	for i := range e.cfg.Runs {
		if i > 0 {
			if err := rescaleBack(e, c, id); err != nil {
				return runs, records, rate, fmt.Errorf("back to %d before run %d: %w", rescaleFrom, i+1, err)
			}
		}
		r, err := rescaleOnce(e.ctx, c, dir, id, out)
		if err != nil {
			return runs, records, rate, fmt.Errorf("run %d: %w", i+1, err)
		}
		fmt.Fprintf(e.cfg.Log, "rescale run %d: %s\n", i+1, r.line())
		runs = append(runs, r)
	}
	return runs, records, rate, c.Scheduler.Cancel(e.ctx, id)
}

// rescaleRun is what one rescale measured.
type rescaleRun struct {
	checkpoint  int64         // the checkpoint restored
	firstOutput time.Duration // request -> first output at the new parallelism
	stopToFirst time.Duration // old attempt stopped -> first output
	schedDown   time.Duration // the scheduler's "downtime"
	schedTotal  time.Duration // the scheduler's "since the request"
	restore     restoreBytes
}

func (r rescaleRun) line() string {
	return fmt.Sprintf("checkpoint %d restored; request -> first output at %d: %s (old attempt stopped -> first output %s); scheduler: %s downtime, %s since the request; %s",
		r.checkpoint, rescaleTo, r.firstOutput.Round(time.Millisecond), r.stopToFirst.Round(time.Millisecond),
		r.schedDown, r.schedTotal, r.restore.line())
}

// rescaleOnce rescales job id from rescaleFrom to rescaleTo and measures it.
func rescaleOnce(ctx context.Context, c *minicluster.Cluster, dir, id string, out *writeTimes) (rescaleRun, error) {
	var r rescaleRun
	out.arm()
	defer out.disarm()
	requested := time.Now()
	if err := c.Scheduler.Rescale(ctx, id, api.RescaleRequest{Parallelism: rescaleTo}); err != nil {
		return r, err
	}
	ev, err := awaitRescaled(ctx, c, id, requested)
	if err != nil {
		return r, err
	}
	r.checkpoint, r.schedDown, r.schedTotal = ev.checkpoint, ev.down, ev.total
	// Let the new attempt write for a while, so that its first output is
	// followed by more.
	time.Sleep(500 * time.Millisecond)
	first, err := out.firstAfterGap(ev.stopped, ev.deploying)
	if err != nil {
		return r, err
	}
	r.firstOutput, r.stopToFirst = first.Sub(requested), first.Sub(ev.stopped)
	r.restore, err = measureRestore(ctx, filepath.Join(dir, "scheduler", "checkpoints"), id, r.checkpoint)
	return r, err
}

// rescaleBack rescales job id back to rescaleFrom, untimed, and waits for
// a checkpoint at that parallelism.
func rescaleBack(e *env, c *minicluster.Cluster, id string) error {
	requested := time.Now()
	if err := c.Scheduler.Rescale(e.ctx, id, api.RescaleRequest{Parallelism: rescaleFrom}); err != nil {
		return err
	}
	ev, err := awaitRescaled(e.ctx, c, id, requested)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.cfg.Log, "rescale back to %d (untimed): scheduler %s downtime, %s since the request\n", rescaleFrom, ev.down, ev.total)
	return awaitCheckpoint(e.ctx, c, id, time.Now())
}

// warmUp waits until the count stage has read records records and a
// checkpoint triggered after that has completed, and returns the records
// read and their rate.
func warmUp(ctx context.Context, c *minicluster.Cluster, id string, records int64) (int64, float64, error) {
	var start time.Time
	var n int64
	st, err := awaitJob(ctx, c.Scheduler, id, func(st api.JobStatus) bool {
		if st.State == api.JobRunning && start.IsZero() {
			start = time.Now()
		}
		if len(st.Vertices) > 0 {
			n = st.Vertices[len(st.Vertices)-1].RecordsIn
		}
		return st.State == api.JobRunning && n >= records
	})
	if err != nil {
		return n, 0, err
	}
	if st.State != api.JobRunning {
		return n, 0, fmt.Errorf("job %s %s: %s", id, st.State, st.Message)
	}
	rate := float64(n) / time.Since(start).Seconds()
	return n, rate, awaitCheckpoint(ctx, c, id, time.Now())
}

// awaitCheckpoint waits until a checkpoint of job id triggered after
// after has completed.
func awaitCheckpoint(ctx context.Context, c *minicluster.Cluster, id string, after time.Time) error {
	deadline := after.Add(time.Minute)
	for {
		cps, err := c.Scheduler.Checkpoints(ctx, id)
		if err != nil {
			return err
		}
		for _, cp := range cps {
			if cp.Status == api.CheckpointCompleted && cp.TriggeredAt.After(after) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("job %s: no checkpoint completed within a minute", id)
		}
		time.Sleep(jobPoll)
	}
}

// rescaleEvents is what a job's history tells of a rescale.
type rescaleEvents struct {
	checkpoint int64     // the checkpoint restored
	stopped    time.Time // the old attempt stopped ("rescaling from")
	deploying  time.Time // the new attempt's deployment began
	// down and total are the scheduler's "downtime" and "since the request".
	down, total time.Duration
}

var (
	rescalingFrom   = regexp.MustCompile(`^rescaling from \S+ to \S+ from checkpoint (\d+)(?:: partial, .*)?$`)
	rescaledMessage = regexp.MustCompile(`^rescaled to \S+: (\S+) downtime \((\S+) since the request\)$`)
)

// awaitRescaled waits until job id's history reports a rescale requested
// after since as done, and returns what the history tells of it.
func awaitRescaled(ctx context.Context, c *minicluster.Cluster, id string, since time.Time) (rescaleEvents, error) {
	var ev rescaleEvents
	var done bool
	var err error
	st, werr := awaitJob(ctx, c.Scheduler, id, func(st api.JobStatus) bool {
		ev, done, err = readRescale(st.History, since)
		return done || err != nil
	})
	switch {
	case werr != nil:
		return ev, werr
	case err != nil:
		return ev, err
	case !done:
		return ev, fmt.Errorf("job %s %s while rescaling: %s", id, st.State, st.Message)
	}
	return ev, nil
}

// readRescale reads the events of a rescale from history, from since on.
// done reports whether the rescale has finished.
func readRescale(history []api.Event, since time.Time) (ev rescaleEvents, done bool, err error) {
	for _, h := range history {
		if h.Time.Before(since) {
			continue
		}
		if m := rescalingFrom.FindStringSubmatch(h.Message); m != nil {
			ev.stopped = h.Time
			if ev.checkpoint, err = strconv.ParseInt(m[1], 10, 64); err != nil {
				return ev, false, err
			}
			if h.State == api.JobDeploying { // a partial rescale deploys at once
				ev.deploying = h.Time
			}
			continue
		}
		if !ev.stopped.IsZero() && ev.deploying.IsZero() && h.State == api.JobDeploying {
			ev.deploying = h.Time
		}
		if m := rescaledMessage.FindStringSubmatch(h.Message); m != nil {
			if ev.stopped.IsZero() || ev.deploying.IsZero() {
				return ev, false, fmt.Errorf("%q without a rescaling then DEPLOYING event before it", h.Message)
			}
			if ev.down, err = time.ParseDuration(m[1]); err == nil {
				ev.total, err = time.ParseDuration(m[2])
			}
			return ev, err == nil, err
		}
	}
	return ev, false, nil
}

// writeTimes is the io.Writer under the cluster's stdout sinks: it
// discards what they write and, once armed, records when.
type writeTimes struct {
	mu    sync.Mutex
	armed bool
	times []time.Time
}

func (w *writeTimes) Write(p []byte) (int, error) {
	now := time.Now()
	w.mu.Lock()
	if w.armed {
		w.times = append(w.times, now)
	}
	w.mu.Unlock()
	return len(p), nil
}

// arm starts recording, forgetting what was recorded before; disarm
// stops.
func (w *writeTimes) arm() { w.set(true, nil) }

func (w *writeTimes) disarm() { w.set(false, nil) }

func (w *writeTimes) set(armed bool, times []time.Time) {
	w.mu.Lock()
	w.armed, w.times = armed, times
	w.mu.Unlock()
}

// firstAfterGap returns the first write of the new attempt: the one that
// ends the longest silence after the old attempt was stopped (its tasks
// may still flush their sinks as they close). It must come after the new
// attempt's deployment began.
func (w *writeTimes) firstAfterGap(stopped, deploying time.Time) (time.Time, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	prev, best := stopped, time.Duration(-1)
	var first time.Time
	for _, t := range w.times {
		if t.Before(stopped) {
			continue
		}
		if gap := t.Sub(prev); gap > best {
			best, first = gap, t
		}
		prev = t
	}
	if first.IsZero() {
		return first, errors.New("no output after the rescale")
	}
	if first.Before(deploying) {
		return first, fmt.Errorf("the longest silence of the output ends %s before the new attempt was deployed: cannot tell its first output",
			deploying.Sub(first))
	}
	return first, nil
}

// longestGap returns the longest silence of the output between from and
// to, counting from from and up to to when nothing was written since.
func (w *writeTimes) longestGap(from, to time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	prev, best := from, time.Duration(0)
	for _, t := range w.times {
		if t.Before(from) || t.After(to) {
			continue
		}
		best, prev = max(best, t.Sub(prev)), t
	}
	return max(best, to.Sub(prev))
}

// restoreBytes is what the new subtasks read to restore keyed state.
type restoreBytes struct {
	state int64 // the size of every old subtask's chain of snapshot files
	// read is what each new subtask fetches with range reads; whole what
	// it would fetch reading the files of its share whole.
	read, whole []int64
	files       int // files in the restored checkpoint
}

func (b restoreBytes) total() int64 { return sumBytes(b.read) }

// maxShare is the most a new subtask read over its fair share of the
// state, state / rescaleTo.
func (b restoreBytes) maxShare() float64 {
	return float64(slices.Max(b.read)) / (float64(b.state) / float64(len(b.read)))
}

func (b restoreBytes) line() string {
	return fmt.Sprintf("state %s in %d files; new subtasks read %s in all (%.2f of the state), each %s (at most %.2fx its share; %s reading whole files)",
		mib(b.state), b.files, mib(b.total()), float64(b.total())/float64(b.state), mibs(b.read), b.maxShare(), mibs(b.whole))
}

func sumBytes(xs []int64) int64 {
	var n int64
	for _, x := range xs {
		n += x
	}
	return n
}

func mibs(xs []int64) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += mib(x)
	}
	return s
}

// rangeGetter is a checkpoint store that reads parts of objects, as
// host/task's restore uses it.
type rangeGetter interface {
	GetRange(ctx context.Context, path string, off, n int64) (io.ReadCloser, error)
}

// measureRestore reads checkpoint id of job from the checkpoint storage
// in dir, and counts the bytes each subtask of the keyed stage at
// rescaleTo reads to restore its share, as host/task's restore reads
// them: snapshot.Read over each file of its share, through range reads.
func measureRestore(ctx context.Context, dir, job string, id int64) (restoreBytes, error) {
	store, err := ckstore.Open(ctx, "file://"+dir, ckstore.Options{})
	if err != nil {
		return restoreBytes{}, err
	}
	rg, ok := store.(rangeGetter)
	if !ok {
		return restoreBytes{}, fmt.Errorf("checkpoint store %T has no range reads", store)
	}
	md, err := readMetadata(ctx, store, job, id)
	if err != nil {
		return restoreBytes{}, err
	}
	var b restoreBytes
	b.files = len(md.Files())
	for _, s := range md.Subtasks {
		if len(s.Keyed) > 0 {
			b.state += s.FullBytes
		}
	}
	for stage := range md.Stages {
		for sub := range rescaleTo {
			read, whole, keyed, err := restoreShare(ctx, rg, md, stage, sub)
			if err != nil {
				return b, err
			}
			if keyed {
				b.read, b.whole = append(b.read, read), append(b.whole, whole)
			}
		}
	}
	if len(b.read) == 0 || b.state == 0 {
		return b, fmt.Errorf("checkpoint %d holds no keyed state", id)
	}
	return b, nil
}

func readMetadata(ctx context.Context, store ckstore.Store, job string, id int64) (*ckmeta.Metadata, error) {
	rc, err := store.Get(ctx, ckmeta.MetadataPath(job, id))
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	raw, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	var md ckmeta.Metadata
	return &md, ckmeta.Unmarshal(raw, &md)
}

// restoreShare returns the bytes subtask sub of stage reads to restore,
// with range reads and reading whole files, and whether it has keyed
// state to restore.
func restoreShare(ctx context.Context, rg rangeGetter, md *ckmeta.Metadata, stage, sub int) (read, whole int64, keyed bool, err error) {
	r, err := md.RestoreFor(stage, sub, rescaleTo)
	if err != nil {
		return 0, 0, false, err
	}
	for _, share := range r.Keyed {
		for _, f := range share.Files {
			cr := &countingReaderAt{ctx: ctx, rg: rg, path: f.Path}
			if _, err := snapshot.Read(cr, f.Size, share.KeyGroups, func(snapshot.Op, []byte, []byte) error { return nil }); err != nil {
				return 0, 0, true, fmt.Errorf("%s: %w", f.Path, err)
			}
			read += cr.n
			whole += f.Size
		}
	}
	return read, whole, len(r.Keyed) > 0, nil
}

// countingReaderAt reads an object by ranges, as host/task's
// objectReaderAt does, and counts the bytes it fetched.
type countingReaderAt struct {
	ctx  context.Context
	rg   rangeGetter
	path string
	n    int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	rc, err := c.rg.GetRange(c.ctx, c.path, off, int64(len(p)))
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	n, err := io.ReadFull(rc, p)
	c.n += int64(n)
	return n, err
}

// rescaleResult sums the runs up. The row's rate is keys per second of
// downtime (request to first output); its ratio the most bytes a new
// subtask read to restore over its fair share of the state.
func rescaleResult(keys int, records int64, rate float64, runs []rescaleRun) Result {
	first := millis(runs, func(r rescaleRun) time.Duration { return r.firstOutput })
	stop := millis(runs, func(r rescaleRun) time.Duration { return r.stopToFirst })
	down := millis(runs, func(r rescaleRun) time.Duration { return r.schedDown })
	total := millis(runs, func(r rescaleRun) time.Duration { return r.schedTotal })
	var shares, reads []float64
	for _, r := range runs {
		shares = append(shares, r.restore.maxShare())
		reads = append(reads, float64(r.restore.total())/float64(r.restore.state))
	}
	last := runs[len(runs)-1].restore
	res := Result{Name: "rescale-1m-keys", RecordsPerSec: float64(keys) / (median(first) / 1000), Ratio: median(shares),
		Baseline: "rec/s: keys/downtime; ratio: max read/share"}
	res.Extra = map[string]any{
		"keys": keys, "warmup_records": records, "warmup_records_per_sec": rate, "from": rescaleFrom, "to": rescaleTo, "checkpoint_interval_ms": rescaleInterval.Milliseconds(),
		"downtime_ms": median(first), "runs_downtime_ms": first, "stop_to_first_output_ms": median(stop),
		"scheduler_downtime_ms": median(down), "scheduler_since_request_ms": median(total),
		"restore_read_over_state": median(reads), "restore_max_read_over_share": median(shares),
		"runs_state_bytes": restoredStates(runs), "runs_state_files": restoredFiles(runs), "state_bytes": last.state, "restore_read_bytes": last.read, "restore_whole_file_bytes": last.whole,
		"target_downtime_ms": 5000, "target_max_read_over_share": 1,
		"downtime_measures":           "request -> first stdout-sink write of the new attempt (the sink flushes every 64 KiB, so the first record was processed slightly earlier)",
		"scheduler_downtime_measures": "old attempt stopped after the rescale checkpoint completed -> every new task restored and RUNNING; since_request adds that checkpoint",
		"restore_bytes_measures":      "computed by the bench: ckmeta.Metadata.RestoreFor + snapshot.Read over range reads of the restored checkpoint's files, as host/task's restore does; the task does not report them",
	}
	var each []string
	for i, r := range runs {
		each = append(each, fmt.Sprintf("%.0fms (%s in %d files)", first[i], mib(r.restore.state), r.restore.files))
	}
	res.Summary = fmt.Sprintf("rescale %d -> %d of a keyed count with %d keys (8-byte counters, pebble, file:// checkpoints every %s; median of %d rescales of one job, back to %d untimed between them): %.0fms from the request to the first output at %d (target < 5s; each rescale, with the state it restored: %s); the scheduler reports %.0fms downtime from stopping the old attempt to every new task RUNNING, %.0fms since the request; restore read %.2f of the state, the busiest new subtask %.2fx its 1/%d share (last run: %s)",
		rescaleFrom, rescaleTo, keys, rescaleInterval, len(runs), rescaleFrom, median(first), rescaleTo, strings.Join(each, ", "),
		median(down), median(total), median(reads), median(shares), rescaleTo, last.line())
	return res
}

func restoredStates(runs []rescaleRun) []int64 {
	var out []int64
	for _, r := range runs {
		out = append(out, r.restore.state)
	}
	return out
}

func restoredFiles(runs []rescaleRun) []int {
	var out []int
	for _, r := range runs {
		out = append(out, r.restore.files)
	}
	return out
}
