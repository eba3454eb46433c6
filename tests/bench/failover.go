package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

const (
	// failoverSchedulers is the size of the scheduler group.
	failoverSchedulers = 3
	// failoverInterval is the job's checkpoint interval.
	failoverInterval = time.Second
	// failoverTarget is issue 15's target for the time from the leader's
	// SIGKILL to the next completed checkpoint.
	failoverTarget = 5 * time.Second
	// failoverSettle is how long the output is watched before the kill
	// and after the checkpoint that follows it.
	failoverSettle = 2 * time.Second
)

// failoverSpec is the job of the scheduler-failover row: random keys
// "key-000123" of -keys distinct ones -> keyBy -> udfs/keyedcount's count
// (an 8-byte counter per key in pebble value state) -> stdout sink, with
// a checkpoint every failoverInterval.
func failoverSpec(keys int) []byte {
	return fmt.Appendf(nil, `name: scheduler-failover
parallelism: 2
maxParallelism: 128
modules: {keyedcount: keyedcount.wasm}
source: {type: generator, uid: gen, kind: random, keys: %d, size: 1}
operators:
  - {type: keyBy, uid: by-key, key: "csv:0"}
  - {type: process, uid: count, module: keyedcount, function: count}
sink: {type: stdout, uid: out}
checkpoints: {interval: %s}
`, keys, failoverInterval)
}

// benchSchedulerFailover runs the keyed count on a group of three `floe
// scheduler` processes and two `floe taskmanager` processes of one slot
// each, on loopback with the default heartbeat and election timeouts,
// until every key has state (keys x ln(keys) records) and a checkpoint
// taken after that has completed. Then, -runs times in the same job, it
// SIGKILLs the leader and measures:
//
//   - the time from the SIGKILL to the completion of the next checkpoint,
//     by the checkpoint's completedAt (the schedulers' clock is this
//     machine's);
//   - the output gap: the longest silence between two writes of the task
//     managers' stdout sinks from the kill to that checkpoint's
//     completion, beside the longest over failoverSettle before the kill
//     (the sinks flush every 64 KiB, so the output is never continuous);
//   - whether a task restarted: the job's attempt before the kill and
//     after the checkpoint, and whether its history says the new leader
//     adopted the attempt;
//   - the lines the sinks wrote per second (one per record counted) from
//     the kill to that checkpoint, and over failoverSettle before it.
//
// Between two runs the killed scheduler is started again with its data
// directory and waited for until it has caught up with the leader's log,
// so that the group of three keeps a quorum for the next kill.
func benchSchedulerFailover(e *env) (Result, error) {
	bin, err := e.floeBinary()
	if err != nil {
		return Result{}, err
	}
	wasm, err := e.wasm("keyedcount")
	if err != nil {
		return Result{}, err
	}
	dir, err := os.MkdirTemp(e.dir, "failover-")
	if err != nil {
		return Result{}, err
	}
	out := &sinkWrites{}
	c, err := startGroupCluster(e.ctx, bin, dir, failoverSchedulers, 2, 1, out)
	if err != nil {
		return Result{}, errors.Join(err, os.RemoveAll(dir))
	}
	runs, records, rate, err := e.failoverRuns(c, wasm, out)
	if err = errors.Join(err, c.close()); err != nil {
		return Result{}, err
	}
	return failoverResult(e.cfg.Keys, records, rate, runs), nil
}

// failoverRuns submits the job, warms it up and kills the leader -runs
// times.
func (e *env) failoverRuns(c *groupCluster, wasm []byte, out *sinkWrites) ([]failoverRun, int64, float64, error) {
	id, err := c.client.Submit(e.ctx, api.Submission{Spec: failoverSpec(e.cfg.Keys), Modules: map[string][]byte{"keyedcount": wasm}})
	if err != nil {
		return nil, 0, 0, err
	}
	records, rate, err := warmUpOn(e.ctx, c, id, int64(math.Ceil(float64(e.cfg.Keys)*math.Log(float64(e.cfg.Keys)))))
	if err != nil {
		return nil, records, rate, err
	}
	fmt.Fprintf(e.cfg.Log, "scheduler-failover: %d records counted at %s records/s, and a checkpoint completed since\n", records, human(rate))
	var runs []failoverRun
	var killed *groupMember
	for i := range e.cfg.Runs {
		if killed != nil {
			if err := rejoin(e.ctx, c, killed); err != nil {
				return runs, records, rate, fmt.Errorf("before run %d: %w", i+1, err)
			}
		}
		r, err := failoverOnce(e.ctx, c, id, out)
		if err != nil {
			return runs, records, rate, fmt.Errorf("run %d: %w", i+1, err)
		}
		fmt.Fprintf(e.cfg.Log, "scheduler-failover run %d: %s\n", i+1, r.line())
		runs, killed = append(runs, r), r.killed
	}
	return runs, records, rate, c.client.Cancel(e.ctx, id)
}

// warmUpOn waits until the count stage of job id has read records records
// and a checkpoint triggered after that has completed, and returns the
// records read and their rate.
func warmUpOn(ctx context.Context, c *groupCluster, id string, records int64) (int64, float64, error) {
	var start time.Time
	var n int64
	st, err := awaitJob(ctx, c, id, func(st api.JobStatus) bool {
		if st.State == api.JobRunning && start.IsZero() {
			start = time.Now()
		}
		n = countedIn(st)
		return st.State == api.JobRunning && n >= records
	})
	if err != nil {
		return n, 0, err
	}
	if st.State != api.JobRunning {
		return n, 0, fmt.Errorf("job %s %s: %s", id, st.State, st.Message)
	}
	rate := float64(n) / time.Since(start).Seconds()
	_, err = awaitCheckpointAfter(ctx, c, id, time.Now())
	return n, rate, err
}

// countedIn returns the records the job's last stage has read.
func countedIn(st api.JobStatus) int64 {
	if len(st.Vertices) == 0 {
		return 0
	}
	return st.Vertices[len(st.Vertices)-1].RecordsIn
}

// awaitCheckpointAfter waits until a checkpoint of job id completes after
// after, and returns it.
func awaitCheckpointAfter(ctx context.Context, c *groupCluster, id string, after time.Time) (api.CheckpointStatus, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		cps, err := c.client.Checkpoints(ctx, id)
		if cp, ok := firstCompletedAfter(cps, after); err == nil && ok {
			return cp, nil
		}
		if time.Now().After(deadline) {
			return api.CheckpointStatus{}, fmt.Errorf("job %s: no checkpoint completed within a minute of %s (%v); logs in %s",
				id, after.Format(time.TimeOnly), err, c.dir)
		}
		time.Sleep(jobPoll)
	}
}

// firstCompletedAfter returns the checkpoint of cps that completed first
// after after.
func firstCompletedAfter(cps []api.CheckpointStatus, after time.Time) (api.CheckpointStatus, bool) {
	var first api.CheckpointStatus
	for _, cp := range cps {
		if cp.Status != api.CheckpointCompleted || cp.CompletedAt == nil || !cp.CompletedAt.After(after) {
			continue
		}
		if first.CompletedAt == nil || cp.CompletedAt.Before(*first.CompletedAt) {
			first = cp
		}
	}
	return first, first.CompletedAt != nil
}

// failoverRun is what one SIGKILL of the leader measured.
type failoverRun struct {
	killed, next *groupMember
	led          time.Duration // SIGKILL -> another member seen leading
	// toAdopt is SIGKILL -> the history's adoption event: every task
	// manager of the attempt has registered again with the new leader.
	toAdopt      time.Duration
	checkpoint   int64         // the first checkpoint completed after the kill
	toCheckpoint time.Duration // SIGKILL -> its completedAt
	// toTrigger is SIGKILL -> its triggeredAt, took its duration.
	toTrigger, took time.Duration
	out             output
	// attemptBefore and attemptAfter are the job's attempts at the kill
	// and once the checkpoint completed; adopted is whether its history
	// says the new leader adopted the attempt.
	attemptBefore, attemptAfter int
	adopted                     bool
}

func (r failoverRun) restarted() bool { return r.attemptAfter != r.attemptBefore || !r.adopted }

func (r failoverRun) line() string {
	return fmt.Sprintf("SIGKILL %s; %s leads after %s, adopted the attempt after %s; checkpoint %d triggered %s after the kill, completed %s after it (took %s); output gap %s (longest %s in the %s before); attempt %d -> %d, adopted %t; %s records/s before, %s across",
		r.killed.name, r.next.name, r.led.Round(time.Millisecond), r.toAdopt.Round(time.Millisecond), r.checkpoint, r.toTrigger.Round(time.Millisecond), r.toCheckpoint.Round(time.Millisecond), r.took,
		r.out.longest.Round(time.Millisecond), r.out.before.Round(time.Millisecond), failoverSettle, r.attemptBefore, r.attemptAfter, r.adopted,
		human(r.out.rateBefore), human(r.out.rateAcross))
}

// failoverOnce SIGKILLs the leader while job id runs and measures what
// follows.
func failoverOnce(ctx context.Context, c *groupCluster, id string, out *sinkWrites) (failoverRun, error) {
	var r failoverRun
	out.arm()
	defer out.disarm()
	time.Sleep(failoverSettle)
	before, err := c.Job(ctx, id)
	if err != nil {
		return r, err
	}
	if before.State != api.JobRunning {
		return r, fmt.Errorf("job %s %s before the kill: %s", id, before.State, before.Message)
	}
	lead, err := c.leader(ctx, nil)
	if err != nil {
		return r, err
	}
	killedAt := time.Now()
	r.killed, r.attemptBefore = lead, before.Attempt
	c.kill(lead)
	if r.next, err = c.leader(ctx, lead); err != nil {
		return r, err
	}
	r.led = time.Since(killedAt)
	cp, err := awaitCheckpointAfter(ctx, c, id, killedAt)
	if err != nil {
		return r, err
	}
	r.checkpoint, r.toCheckpoint = cp.ID, cp.CompletedAt.Sub(killedAt)
	r.toTrigger, r.took = cp.TriggeredAt.Sub(killedAt), time.Duration(cp.DurationMillis)*time.Millisecond
	after, err := c.Job(ctx, id)
	if err != nil {
		return r, err
	}
	r.attemptAfter = after.Attempt
	var at time.Time
	if at, r.adopted = adoptedAt(after.History, before.Attempt, killedAt); r.adopted {
		r.toAdopt = at.Sub(killedAt)
	}
	time.Sleep(failoverSettle)
	r.out, err = out.around(killedAt, *cp.CompletedAt)
	return r, err
}

// rejoin starts the killed member m again with its data directory and
// waits until it has caught up with the leader's log.
func rejoin(ctx context.Context, c *groupCluster, m *groupMember) error {
	if err := c.startMember(m); err != nil {
		return err
	}
	lead, err := c.leader(ctx, nil)
	if err != nil {
		return err
	}
	return c.awaitCaughtUp(ctx, m, lead)
}

// adoptedAt returns when history says that attempt was adopted after a
// scheduler failover, the first time after since, and whether it says so.
func adoptedAt(history []api.Event, attempt int, since time.Time) (time.Time, bool) {
	want := fmt.Sprintf("attempt %d adopted after a scheduler failover", attempt)
	for _, e := range history {
		if e.Message == want && e.Time.After(since) {
			return e.Time, true
		}
	}
	return time.Time{}, false
}

// output is what the sinks' writes show around a failover.
type output struct {
	// longest is the longest silence between two writes that ends after
	// the failover began and starts before it ended.
	longest time.Duration
	// before is the longest silence between two writes before the
	// failover began, as long as they were recorded (failoverSettle): what
	// the output shows undisturbed.
	before time.Duration
	// rateBefore and rateAcross are the lines the sinks wrote per second
	// before the failover, and during it.
	rateBefore, rateAcross float64
}

// sinkWrite is one write of a task manager's stdout.
type sinkWrite struct {
	at    time.Time
	lines int
}

// sinkWrites is the io.Writer under the task managers' stdout sinks: it
// discards what they write and, once armed, records when and how many
// lines. The copiers of several processes' pipes write to it concurrently.
type sinkWrites struct {
	mu     sync.Mutex
	armed  bool
	writes []sinkWrite
}

func (w *sinkWrites) Write(p []byte) (int, error) {
	now := time.Now()
	w.mu.Lock()
	if w.armed {
		w.writes = append(w.writes, sinkWrite{now, bytes.Count(p, []byte{'\n'})})
	}
	w.mu.Unlock()
	return len(p), nil
}

// arm starts recording, forgetting what was recorded before; disarm
// stops.
func (w *sinkWrites) arm() { w.set(true) }

func (w *sinkWrites) disarm() { w.set(false) }

func (w *sinkWrites) set(armed bool) {
	w.mu.Lock()
	w.armed, w.writes = armed, nil
	w.mu.Unlock()
}

// around returns the output around a failover from `from` to `to`.
func (w *sinkWrites) around(from, to time.Time) (output, error) {
	w.mu.Lock()
	writes := slices.Clone(w.writes)
	w.mu.Unlock()
	return outputAround(writes, from, to)
}

// outputAround measures the writes (in any order: the task managers'
// stdout pipes are copied concurrently) around a failover from `from` to
// `to`.
func outputAround(writes []sinkWrite, from, to time.Time) (output, error) {
	slices.SortFunc(writes, func(a, b sinkWrite) int { return a.at.Compare(b.at) })
	var o output
	var linesBefore, linesAcross int
	before, after := false, false
	for i := 1; i < len(writes); i++ {
		a, b := writes[i-1].at, writes[i].at
		if !b.After(from) {
			o.before, before = max(o.before, b.Sub(a)), true
			linesBefore += writes[i].lines
			continue
		}
		if a.Before(to) {
			o.longest = max(o.longest, b.Sub(a))
		}
		if !b.After(to) {
			linesAcross += writes[i].lines
		}
		after = after || b.After(to)
	}
	switch {
	case !before:
		return o, errors.New("no output before the failover")
	case !after:
		return o, errors.New("no output after the failover")
	}
	o.rateBefore = float64(linesBefore) / from.Sub(writes[0].at).Seconds()
	o.rateAcross = float64(linesAcross) / to.Sub(from).Seconds()
	return o, nil
}

// failoverResult sums the runs up. The row's rate is the lines/s the
// sinks wrote from the kill to the checkpoint (one per record counted),
// its baseline the same over failoverSettle just before the kill; its ratio the target, 5 s, over the median time
// from the kill to the next completed checkpoint.
func failoverResult(keys int, records int64, rate float64, runs []failoverRun) Result {
	toCkpt := millis(runs, func(r failoverRun) time.Duration { return r.toCheckpoint })
	led := millis(runs, func(r failoverRun) time.Duration { return r.led })
	adopt := millis(runs, func(r failoverRun) time.Duration { return r.toAdopt })
	trig := millis(runs, func(r failoverRun) time.Duration { return r.toTrigger })
	took := millis(runs, func(r failoverRun) time.Duration { return r.took })
	gaps := millis(runs, func(r failoverRun) time.Duration { return r.out.longest })
	quiet := millis(runs, func(r failoverRun) time.Duration { return r.out.before })
	var across, before []float64
	restarts := 0
	var attempts []string
	for _, r := range runs {
		across, before = append(across, r.out.rateAcross), append(before, r.out.rateBefore)
		if r.restarted() {
			restarts++
		}
		attempts = append(attempts, fmt.Sprintf("%d->%d", r.attemptBefore, r.attemptAfter))
	}
	res := Result{Name: "scheduler-failover", RecordsPerSec: median(across), NativeRecordsPerSec: median(before),
		Ratio:    failoverTarget.Seconds() * 1000 / median(toCkpt),
		Baseline: "rec/s: across failover vs before; ratio: 5s/(kill->ckpt)"}
	res.Extra = map[string]any{
		"keys": keys, "warmup_records": records, "warmup_records_per_sec": rate, "schedulers": failoverSchedulers, "task_managers": 2,
		"checkpoint_interval_ms": failoverInterval.Milliseconds(), "timeouts": "defaults (heartbeat, election)",
		"kill_to_checkpoint_ms": median(toCkpt), "runs_kill_to_checkpoint_ms": toCkpt, "kill_to_leader_ms": median(led),
		"kill_to_adoption_ms": median(adopt), "kill_to_checkpoint_trigger_ms": median(trig), "checkpoint_duration_ms": median(took),
		"records_per_sec_measures": "lines the stdout sinks wrote per second (one per record counted), kill -> checkpoint; baseline over the 2s before the kill",
		"output_gap_ms":            median(gaps), "runs_output_gap_ms": gaps, "output_gap_before_ms": median(quiet),
		"runs_attempts": attempts, "runs_task_restarted": restarts,
		"target_kill_to_checkpoint_ms": failoverTarget.Milliseconds(),
		"kill_to_checkpoint_measures":  "SIGKILL of the leading scheduler -> completedAt of the first checkpoint completed after it",
		"output_gap_measures":          "longest silence between two writes of the task managers' stdout sinks from the kill to that checkpoint (the sinks flush every 64 KiB)",
		"kill_to_leader_measures":      "SIGKILL -> another scheduler seen leading by GET /v1/cluster, polled every 10ms",
	}
	restart := "no task restart when adoption applies: the new leader adopted the running attempt every time"
	if restarts > 0 {
		restart = fmt.Sprintf("TASKS RESTARTED in %d of %d failovers although adoption should apply", restarts, len(runs))
	}
	res.Summary = fmt.Sprintf("SIGKILL of the leader of %d schedulers (default timeouts) under a keyed count with %d keys (pebble, file:// checkpoints every %s, 2 task manager processes; median of %d failovers of one job): %.0fms to the next completed checkpoint (target < 5s; each: %s), a new leader after %.0fms, adoption after %.0fms, the checkpoint triggered %.0fms after the kill and taking %.0fms; output gap %.0fms (longest %.0fms in the %s before the kill); %s (attempts %s); %s records/s across the failover, %s before",
		failoverSchedulers, keys, failoverInterval, len(runs), median(toCkpt), strings.Join(fmtMillis(toCkpt), ", "), median(led), median(adopt), median(trig), median(took),
		median(gaps), median(quiet), failoverSettle, restart, strings.Join(attempts, ", "), human(res.RecordsPerSec), human(res.NativeRecordsPerSec))
	return res
}

func fmtMillis(xs []float64) []string {
	var out []string
	for _, x := range xs {
		out = append(out, fmt.Sprintf("%.0fms", x))
	}
	return out
}
