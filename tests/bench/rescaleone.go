package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/floe-stream/floe/host/connector/stdout"
	"github.com/floe-stream/floe/minicluster"
	"github.com/floe-stream/floe/scheduler/api"
)

// oneOpUID is the operator rescale-one-operator rescales, from
// rescaleFrom to rescaleTo; the source stays at rescaleFrom, the sink at 1.
const oneOpUID = "count"

// rescaleOneSpec is a three-stage job: the generator (stage 0) -> keyBy ->
// the keyed count (stage 1) -> a stdout sink at parallelism 1 (stage 2,
// rebalanced to, since its parallelism differs).
func rescaleOneSpec(keys int) []byte {
	return fmt.Appendf(nil, `name: rescale-one
parallelism: %d
maxParallelism: 128
modules: {keyedcount: keyedcount.wasm}
source: {type: generator, uid: gen, kind: random, keys: %d, size: 1}
operators:
  - {type: keyBy, uid: by-key, key: "csv:0"}
  - {type: process, uid: %s, module: keyedcount, function: count}
sink: {type: stdout, uid: out, parallelism: 1}
checkpoints: {interval: %s, retain: 20}
`, rescaleFrom, keys, oneOpUID, rescaleInterval)
}

// stageDown is how long one stage was down in a rescale, as the
// scheduler's job status shows it (polled every 10 ms).
type stageDown struct {
	// notRunning is from the first poll that found a subtask of the stage
	// not RUNNING to the first that found all RUNNING again.
	notRunning time.Duration
	// restarted tells that the stage's subtasks left RUNNING at all.
	restarted bool
}

// oneRun is what one rescale of rescale-one-operator measured.
type oneRun struct {
	firstOutput time.Duration // request -> first output at the new parallelism
	// gap is the longest silence of the output from the request to 500 ms
	// after the rescale was reported done.
	gap       time.Duration
	schedDown time.Duration
	stages    []stageDown
	// checkpoint is the one restored, restore what the new subtasks read
	// of it.
	checkpoint int64
	restore    restoreBytes
}

// benchRescaleOneOperator runs the three-stage job with -keys keys,
// warms it up as rescale-1m-keys does, then rescales only the count
// operator (operators: {count: 4}), -runs times, back to 2 untimed between:
// once with partial rescales off (every stage restarts from the rescale's
// checkpoint) and once on (the generator and the sink are suspended at it
// and resumed; only the count is redeployed).
func benchRescaleOneOperator(e *env) (Result, error) {
	wasm, err := e.wasm("keyedcount")
	if err != nil {
		return Result{}, err
	}
	runs := map[bool][]oneRun{}
	for _, partial := range []bool{true, false} {
		if runs[partial], err = e.rescaleOneMode(wasm, partial); err != nil {
			return Result{}, fmt.Errorf("partial rescale %t: %w", partial, err)
		}
	}
	return rescaleOneResult(e.cfg.Keys, runs[false], runs[true]), nil
}

// rescaleOneMode runs the row's job on a mini-cluster of its own, with
// partial rescales on or off.
func (e *env) rescaleOneMode(wasm []byte, partial bool) ([]oneRun, error) {
	dir, err := os.MkdirTemp(e.dir, "rescale-one-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := &writeTimes{}
	c, err := minicluster.Start(e.ctx, minicluster.Config{DataDir: dir, TaskManagers: 1, Slots: rescaleTo,
		Engine: e.engine, Stdout: stdout.NewWriter(out), PartialRescale: partial})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(e.cfg.Log, "rescale-one: partial rescales %t\n", partial)
	runs, err := e.rescaleOneRuns(c, dir, wasm, out)
	return runs, errors.Join(err, c.Close())
}

func (e *env) rescaleOneRuns(c *minicluster.Cluster, dir string, wasm []byte, out *writeTimes) ([]oneRun, error) {
	id, err := c.Scheduler.Submit(e.ctx, api.Submission{Spec: rescaleOneSpec(e.cfg.Keys), Modules: map[string][]byte{"keyedcount": wasm}})
	if err != nil {
		return nil, err
	}
	records, rate, err := warmUp(e.ctx, c, id, int64(math.Ceil(float64(e.cfg.Keys)*math.Log(float64(e.cfg.Keys)))))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(e.cfg.Log, "rescale-one: %d records counted at %s records/s, and a checkpoint completed since\n", records, human(rate))
	var runs []oneRun
	for i := range e.cfg.Runs {
		if i > 0 {
			if err := rescaleOpTo(e.ctx, c, id, rescaleFrom); err != nil {
				return runs, fmt.Errorf("back to %d before run %d: %w", rescaleFrom, i+1, err)
			}
			if err := awaitCheckpoint(e.ctx, c, id, time.Now()); err != nil {
				return runs, err
			}
		}
		r, err := rescaleOneOnce(e.ctx, c, dir, id, out)
		if err != nil {
			return runs, fmt.Errorf("run %d: %w", i+1, err)
		}
		fmt.Fprintf(e.cfg.Log, "rescale-one run %d: %s\n", i+1, r.line())
		runs = append(runs, r)
	}
	return runs, c.Scheduler.Cancel(e.ctx, id)
}

// rescaleOpTo rescales the count operator alone to n and waits until done.
func rescaleOpTo(ctx context.Context, c *minicluster.Cluster, id string, n int) error {
	requested := time.Now()
	if err := c.Scheduler.Rescale(ctx, id, api.RescaleRequest{Operators: map[string]int{oneOpUID: n}}); err != nil {
		return err
	}
	_, err := awaitRescaled(ctx, c, id, requested)
	return err
}

// rescaleOneOnce rescales the count operator to rescaleTo, polling the
// job's status meanwhile for each stage's downtime.
func rescaleOneOnce(ctx context.Context, c *minicluster.Cluster, dir, id string, out *writeTimes) (oneRun, error) {
	var r oneRun
	out.arm()
	defer out.disarm()
	requested := time.Now()
	if err := c.Scheduler.Rescale(ctx, id, api.RescaleRequest{Operators: map[string]int{oneOpUID: rescaleTo}}); err != nil {
		return r, err
	}
	var downSince []time.Time
	var done bool
	var ev rescaleEvents
	var rerr error
	st, err := awaitJob(ctx, c.Scheduler, id, func(st api.JobStatus) bool {
		now := time.Now()
		r.stages, downSince = trackStages(st, r.stages, downSince, now)
		if !done {
			ev, done, rerr = readRescale(st.History, requested)
		}
		return rerr != nil || done && allRunning(st)
	})
	switch {
	case err != nil:
		return r, err
	case rerr != nil:
		return r, rerr
	case !done:
		return r, fmt.Errorf("job %s %s while rescaling: %s", id, st.State, st.Message)
	}
	if got := st.Vertices[1].Parallelism; got != rescaleTo {
		return r, fmt.Errorf("stage 1 runs at %d after the rescale, want %d", got, rescaleTo)
	}
	r.schedDown, r.checkpoint = ev.down, ev.checkpoint
	reported := time.Now()
	time.Sleep(500 * time.Millisecond)
	r.gap = out.longestGap(requested, reported.Add(500*time.Millisecond))
	first, err := out.firstAfterGap(requested, ev.deploying)
	if err != nil {
		return r, err
	}
	r.firstOutput = first.Sub(requested)
	r.restore, err = measureRestore(ctx, filepath.Join(dir, "scheduler", "checkpoints"), id, r.checkpoint)
	return r, err
}

// trackStages updates each stage's downtime from one poll of the job.
func trackStages(st api.JobStatus, stages []stageDown, since []time.Time, now time.Time) ([]stageDown, []time.Time) {
	for len(stages) < len(st.Vertices) {
		stages, since = append(stages, stageDown{}), append(since, time.Time{})
	}
	for i, v := range st.Vertices {
		up := len(v.Subtasks) > 0
		for _, s := range v.Subtasks {
			up = up && s.State == "RUNNING"
		}
		switch {
		case !up && since[i].IsZero():
			since[i], stages[i].restarted = now, true
		case up && !since[i].IsZero():
			stages[i].notRunning += now.Sub(since[i])
			since[i] = time.Time{}
		}
	}
	return stages, since
}

func allRunning(st api.JobStatus) bool {
	if st.State != api.JobRunning {
		return false
	}
	for _, v := range st.Vertices {
		for _, s := range v.Subtasks {
			if s.State != "RUNNING" {
				return false
			}
		}
	}
	return true
}

func (r oneRun) line() string {
	var s []string
	for i, d := range r.stages {
		s = append(s, fmt.Sprintf("stage %d: restarted %t, %s not RUNNING", i, d.restarted, d.notRunning.Round(time.Millisecond)))
	}
	return fmt.Sprintf("request -> first output %s; longest output gap %s; scheduler %s downtime; %s; checkpoint %d restored: %s",
		r.firstOutput.Round(time.Millisecond), r.gap.Round(time.Millisecond), r.schedDown, strings.Join(s, "; "), r.checkpoint, r.restore.line())
}

// rescaleOneResult sums the runs up: the row's rate is keys per second of
// the partial rescale's output gap, its native rate the whole-job
// rescale's, and its ratio the partial rescale's gap over the whole-job
// one's (below 1: shorter).
func rescaleOneResult(keys int, whole, partial []oneRun) Result {
	gap := func(runs []oneRun) []float64 { return millis(runs, func(r oneRun) time.Duration { return r.gap }) }
	first := func(runs []oneRun) []float64 {
		return millis(runs, func(r oneRun) time.Duration { return r.firstOutput })
	}
	down := func(runs []oneRun) []float64 {
		return millis(runs, func(r oneRun) time.Duration { return r.schedDown })
	}
	stages := func(runs []oneRun) (map[string]float64, map[string]bool) {
		notRunning, restarted := map[string]float64{}, map[string]bool{}
		for st := range runs[0].stages {
			notRunning[fmt.Sprint(st)] = median(millis(runs, func(r oneRun) time.Duration { return r.stages[st].notRunning }))
			for _, r := range runs {
				restarted[fmt.Sprint(st)] = restarted[fmt.Sprint(st)] || r.stages[st].restarted
			}
		}
		return notRunning, restarted
	}
	wNot, wRestarted := stages(whole)
	pNot, pRestarted := stages(partial)
	pGap, wGap := median(gap(partial)), median(gap(whole))
	res := Result{Name: "rescale-one-operator", RecordsPerSec: float64(keys) / (pGap / 1000),
		NativeRecordsPerSec: float64(keys) / (wGap / 1000), Ratio: pGap / wGap,
		Baseline: "rec/s: keys/output gap, partial vs whole-job rescale; ratio: partial/whole gap"}
	res.Extra = map[string]any{
		"keys": keys, "operator": oneOpUID, "from": rescaleFrom, "to": rescaleTo,
		"partial_output_gap_ms": pGap, "whole_output_gap_ms": wGap,
		"partial_runs_output_gap_ms": gap(partial), "whole_runs_output_gap_ms": gap(whole),
		"partial_first_output_ms": median(first(partial)), "whole_first_output_ms": median(first(whole)),
		"partial_scheduler_downtime_ms": median(down(partial)), "whole_scheduler_downtime_ms": median(down(whole)),
		"partial_stage_not_running_ms": pNot, "whole_stage_not_running_ms": wNot,
		"partial_stage_restarted": pRestarted, "whole_stage_restarted": wRestarted,
		"target_total_gap_ms": 500,
		"stage_measures":      "per stage: time some subtask was not RUNNING in the job status, polled every 10 ms; a kept stage's tasks are suspended, not stopped, and stay RUNNING",
		"gap_measures":        "the longest silence of the stdout sink's writes from the request to 500 ms after the rescale was reported (the sink flushes every 64 KiB)",
		"downtime_measures":   "scheduler downtime: the rescale checkpoint's completion to every new task running (partial: and the kept tasks told to resume); kept tasks are suspended from their barrier to the resume",
		"machine":             "2 shared cores; figures vary run to run",
	}
	res.Summary = fmt.Sprintf("rescale of the count operator alone %d -> %d in a three-stage job (generator x%d | count | stdout x1), %d keys, median of %d: "+
		"partial rescale: output gap %.0fms (target < 500ms), scheduler downtime %.0fms, generator and sink restarted %t/%t; "+
		"whole-job rescale: output gap %.0fms, scheduler downtime %.0fms; machine shared",
		rescaleFrom, rescaleTo, rescaleFrom, keys, len(partial), pGap, median(down(partial)), pRestarted["0"], pRestarted["2"], wGap, median(down(whole)))
	return res
}
