package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/generator"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/minicluster"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/textgen"
)

// The rate schedule of autoscale-step: low, high, low, in records/s and
// the seconds each step lasts at its rate (a step lasts rate × seconds
// records: docs/jobs.md).
const (
	stepLow, stepHigh               = 2_000, 100_000
	stepLowSecs, stepHighSecs       = 6, 15
	stepTailSecs                    = 25
	stepKeys                        = 64
	stepSample                      = 250 * time.Millisecond
	stepOutputPoll                  = 20 * time.Millisecond
	stepRecords               int64 = stepLow*stepLowSecs + stepHigh*stepHighSecs + stepLow*stepTailSecs
)

// autoscaleStepSpec is the keyed count of the row: the same job and
// autoscaler policy as minicluster's TestAutoscalerFollowsARateSchedule
// (whose comment explains the low target), at a bench's rates.
func autoscaleStepSpec() []byte {
	return fmt.Appendf(nil, `name: autoscale-step
maxParallelism: 16
modules: {kc: keyedcount.wasm}
source:
  type: generator
  uid: gen
  kind: random
  keys: %d
  size: 16
  count: %d
  rate: [{for: %ds, rate: %d}, {for: %ds, rate: %d}, {for: %ds, rate: %d}]
operators:
  - {type: keyBy, uid: by-key, key: "csv:0"}
  - {type: process, uid: count, module: kc, function: count}
sink: {type: file, uid: out, path: "${output}"}
checkpoints: {interval: 2s}
autoscaler: {enabled: true, targetUtilization: 0.08, stabilization: 3s, cooldown: 2s, interval: 1s, maxParallelism: 4}
`, stepKeys, stepRecords, stepLowSecs, stepLow, stepHighSecs, stepHigh, stepTailSecs, stepLow)
}

// stepPoint is one sample of the row's time series.
type stepPoint struct {
	// T is seconds since the job was submitted.
	T float64 `json:"t"`
	// SourceRate and SinkRate are records/s over the last second: the
	// source's records out and the last stage's records in, as the
	// heartbeats (1 s) report them.
	SourceRate float64 `json:"source_rate"`
	SinkRate   float64 `json:"sink_rate"`
	// Parallelism is each stage's, in stage order.
	Parallelism []int `json:"parallelism"`
	// InFlight is the source's records out less the last stage's records
	// in, in the current attempt: the job has no watermarks, so no
	// event-time lag, and the generator no backlog; this is the lag in
	// records.
	InFlight int64 `json:"in_flight"`
	// State is the job's.
	State string `json:"state"`
	// src and sink add up the counters over attempts; rawSrc and rawSink
	// are this attempt's.
	src, sink, rawSrc, rawSink int64
}

// outputWatch polls a file sink's directory and records the times its
// files grew (in-progress files included), as the output's pulse.
type outputWatch struct {
	dir   string
	mu    sync.Mutex
	grew  []time.Time
	last  int64
	wg    sync.WaitGroup
	close chan struct{}
}

func watchOutput(dir string) *outputWatch {
	w := &outputWatch{dir: dir, close: make(chan struct{})}
	w.wg.Add(1)
	go w.run()
	return w
}

func (w *outputWatch) run() {
	defer w.wg.Done()
	for {
		select {
		case <-w.close:
			return
		case <-time.After(stepOutputPoll):
		}
		n := outputBytes(w.dir)
		w.mu.Lock()
		if n > w.last {
			w.grew = append(w.grew, time.Now())
		}
		w.last = n
		w.mu.Unlock()
	}
}

func (w *outputWatch) stop() { close(w.close); w.wg.Wait() }

// longestGap is the longest stretch without growth of the output between
// from and to.
func (w *outputWatch) longestGap(from, to time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	prev, best := from, time.Duration(0)
	for _, t := range w.grew {
		if t.Before(from) {
			continue
		}
		if t.After(to) {
			break
		}
		best, prev = max(best, t.Sub(prev)), t
	}
	return max(best, to.Sub(prev))
}

func outputBytes(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && !e.IsDir() {
			n += info.Size()
		}
	}
	return n
}

// benchAutoscaleStep runs the keyed count under the rate schedule low →
// high → low with the autoscaler on, samples the job every 250 ms and
// measures the time from each step to sustained throughput at its rate,
// the rescales the autoscaler made and the output gap of each, and checks
// the committed output is exactly once.
func benchAutoscaleStep(e *env) (Result, error) {
	wasm, err := e.wasm("keyedcount")
	if err != nil {
		return Result{}, err
	}
	dir, err := os.MkdirTemp(e.dir, "autoscale-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	c, err := minicluster.Start(e.ctx, minicluster.Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 2,
		Engine: e.engine, HeartbeatTimeout: 5 * time.Second})
	if err != nil {
		return Result{}, err
	}
	out := filepath.Join(dir, "out")
	run, err := runAutoscaleStep(e.ctx, c, wasm, out)
	if err = errors.Join(err, c.Close()); err != nil {
		return Result{}, err
	}
	if err := exactlyOnce(out, stepRecords); err != nil {
		return Result{}, fmt.Errorf("exactly once: %w", err)
	}
	return run.result(), nil
}

// stepRun is what one run of the row saw.
type stepRun struct {
	start    time.Time
	series   []stepPoint
	history  []api.Event
	as       api.AutoscalerStatus
	gaps     []time.Duration
	rescales []stepRescale
}

func runAutoscaleStep(ctx context.Context, c *minicluster.Cluster, wasm []byte, out string) (stepRun, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return stepRun{}, err
	}
	w := watchOutput(out)
	defer w.stop()
	r := stepRun{start: time.Now()}
	id, err := c.Scheduler.Submit(ctx, api.Submission{Spec: autoscaleStepSpec(), Params: map[string]string{"output": out},
		Modules: map[string][]byte{"kc": wasm}})
	if err != nil {
		return r, err
	}
	st, err := r.sample(ctx, c, id)
	if err != nil {
		return r, err
	}
	if st.State != api.JobFinished {
		return r, fmt.Errorf("job %s %s: %s", id, st.State, st.Message)
	}
	r.history = st.History
	if r.as, err = c.Scheduler.Autoscaler(ctx, id); err != nil {
		return r, err
	}
	r.rescales = allRescales(st.History)
	for _, ev := range r.rescales {
		r.gaps = append(r.gaps, w.longestGap(ev.stopped.Add(-time.Second), ev.done.Add(3*time.Second)))
	}
	return r, nil
}

// sample polls job id every stepSample until it ends, building the series.
func (r *stepRun) sample(ctx context.Context, c *minicluster.Cluster, id string) (api.JobStatus, error) {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		st, err := c.Scheduler.Job(ctx, id)
		if err != nil {
			return st, err
		}
		r.series = append(r.series, r.point(st))
		if api.Terminal(st.State) {
			return st, nil
		}
		if time.Now().After(deadline) {
			return st, fmt.Errorf("job %s still %s after 3 minutes", id, st.State)
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(stepSample):
		}
	}
}

// point makes a sample of st, its rates over the last second of samples.
// A stage's counters start again at 0 with each attempt (a rescale is a
// new attempt): a counter that went down is taken to have restarted, and
// the records it counted since are added.
func (r *stepRun) point(st api.JobStatus) stepPoint {
	p := stepPoint{T: time.Since(r.start).Seconds(), State: string(st.State)}
	var src, sink int64
	if len(st.Vertices) > 0 {
		src, sink = st.Vertices[0].RecordsOut, st.Vertices[len(st.Vertices)-1].RecordsIn
	}
	p.rawSrc, p.rawSink, p.src, p.sink = src, sink, src, sink
	if n := len(r.series); n > 0 {
		prev := r.series[n-1]
		p.src, p.sink = prev.src+grown(prev.rawSrc, src), prev.sink+grown(prev.rawSink, sink)
	}
	for _, v := range st.Vertices {
		p.Parallelism = append(p.Parallelism, v.Parallelism)
	}
	p.InFlight = max(0, src-sink)
	back := int(time.Second / stepSample)
	if n := len(r.series); n >= back {
		prev := r.series[n-back]
		dt := p.T - prev.T
		p.SourceRate, p.SinkRate = float64(p.src-prev.src)/dt, float64(p.sink-prev.sink)/dt
	}
	return p
}

// grown is what a counter counted from was to now, taking a fall as a
// restart from 0.
func grown(was, now int64) int64 {
	if now < was {
		return now
	}
	return now - was
}

// stepRescale is one rescale of a job's history: when the old attempt
// stopped and when the scheduler reported the new one running.
type stepRescale struct {
	stopped, done time.Time
	down          time.Duration // the scheduler's "downtime"
	to            string        // the parallelisms after, "1/2"
}

// allRescales returns every finished rescale of a job's history, in order.
func allRescales(history []api.Event) []stepRescale {
	var out []stepRescale
	var stopped time.Time
	for _, h := range history {
		if rescalingFrom.MatchString(h.Message) {
			stopped = h.Time
			continue
		}
		m := rescaledMessage.FindStringSubmatch(h.Message)
		if m == nil || stopped.IsZero() {
			continue
		}
		down, _ := time.ParseDuration(m[1])
		to, _, _ := strings.Cut(strings.TrimPrefix(h.Message, "rescaled to "), ":")
		out = append(out, stepRescale{stopped: stopped, done: h.Time, down: down, to: to})
		stopped = time.Time{}
	}
	return out
}

// exactlyOnce checks that the committed output in dir holds, for each
// key, its counts 1..n exactly once, n being what the generator emits.
func exactlyOnce(dir string, count int64) error {
	got, _, err := textgen.ReadCounts(dir)
	if err != nil {
		return err
	}
	want, err := generatorCounts(count, stepKeys)
	if err != nil {
		return err
	}
	var bad []string
	for k, n := range want {
		seen := make([]int, n+1)
		for _, c := range got[k] {
			if c >= 1 && c <= n {
				seen[c]++
			}
		}
		for c := int64(1); c <= n; c++ {
			if seen[c] != 1 {
				bad = append(bad, fmt.Sprintf("key %s count %d seen %d times", k, c, seen[c]))
				break
			}
		}
		if int64(len(got[k])) != n {
			bad = append(bad, fmt.Sprintf("key %s: %d outputs, want %d", k, len(got[k]), n))
		}
	}
	if len(got) != len(want) {
		bad = append(bad, fmt.Sprintf("%d keys out, want %d", len(got), len(want)))
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad[:min(5, len(bad))], "; "))
	}
	return nil
}

// generatorCounts is the records per key that the row's generator emits
// in all: its one split at parallelism 1 keeps its stream wherever it is
// restored.
func generatorCounts(count int64, keys int) (map[string]int64, error) {
	src, err := generator.NewSource(generator.Config{Count: count, Kind: generator.KindRandom, Keys: keys, Size: 16},
		connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err != nil {
		return nil, err
	}
	want := map[string]int64{}
	var b record.Batch
	for {
		b.Reset()
		err := src.Next(context.Background(), &b, 1024)
		for i := range b.Len() {
			key, _, _ := strings.Cut(string(b.Records[i].Value), ",")
			want[key]++
		}
		if errors.Is(err, io.EOF) {
			return want, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// steps returns the times of the step up and the step down, as the
// source's rate shows them: the first sample at more than half the high
// rate, and the one after the last such sample; -1 when not seen.
func (r *stepRun) steps() (up, down float64) {
	up, down = -1, -1
	for i, p := range r.series {
		if p.SourceRate < stepHigh/2 {
			continue
		}
		if up < 0 {
			up = p.T
		}
		if i+1 < len(r.series) {
			down = r.series[i+1].T
		}
	}
	return up, down
}

// sustainedAfter returns the seconds from t until the sink's rate stays
// between lo and hi for a second of samples, or -1.
func (r *stepRun) sustainedAfter(t, lo, hi float64) float64 {
	need := int(time.Second / stepSample)
	run := 0
	for _, p := range r.series {
		if p.T < t {
			continue
		}
		if p.SinkRate >= lo && p.SinkRate <= hi {
			run++
		} else {
			run = 0
		}
		if run > need {
			return p.T - float64(need)*stepSample.Seconds() - t
		}
	}
	return -1
}

// result sums the run up. The row's rate is the high step's; its ratio
// the sink's best second over it.
func (r *stepRun) result() Result {
	up, down := r.steps()
	upS, downS := r.sustainedAfter(up, 0.9*stepHigh, math.Inf(1)), r.sustainedAfter(down, 0.5*stepLow, 1.5*stepLow)
	var gaps []float64
	var each []string
	for i, g := range r.gaps {
		gaps = append(gaps, float64(g.Milliseconds()))
		each = append(each, fmt.Sprintf("to %s at %.1fs: %dms gap (scheduler %s downtime)",
			r.rescales[i].to, r.rescales[i].stopped.Sub(r.start).Seconds(), g.Milliseconds(), r.rescales[i].down))
	}
	best := 0.0
	for _, p := range r.series {
		best = max(best, p.SinkRate)
	}
	res := Result{Name: "autoscale-step", RecordsPerSec: stepHigh, NativeRecordsPerSec: best, Ratio: best / stepHigh,
		Baseline: "rec/s: high step; baseline: best sink second"}
	res.Extra = map[string]any{
		"schedule":     fmt.Sprintf("%d/s for %ds, %d/s for %ds, %d/s for %ds", stepLow, stepLowSecs, stepHigh, stepHighSecs, stepLow, stepTailSecs),
		"step_up_at_s": up, "step_down_at_s": down, "step_up_to_sustained_s": upS, "step_down_to_sustained_s": downS,
		"rescales": len(r.rescales), "autoscaler_rescales": r.as.Rescales, "rescale_output_gap_ms": gaps,
		"exactly_once":     true,
		"steps_mean":       "step up: the first sample whose source rate is above half the high rate; step down: the sample after the last such",
		"sustained_means":  "the sink's records/s (heartbeat counters, 1 s resolution) for a second of 250 ms samples at 90% or more of the high rate, or within 50% of the low rate; -1: never",
		"output_gap_means": "longest time without the file sink's files growing (polled every 20 ms; the sink buffers 256 KiB, ~200 ms at the high rate, seconds at the low one) from 1 s before the old attempt stopped to 3 s after the new one ran",
		"lag_means":        "in_flight: source records out less the last stage's records in (the job has no watermarks, the generator no backlog)",
		"machine":          "2 shared cores; figures vary run to run",
		"series":           r.series,
		"decisions":        len(r.as.Decisions),
	}
	res.Summary = fmt.Sprintf("keyed count, %d keys, autoscaler on (target 0.08, max 4), schedule %s: step up at %.1fs, sink sustained >= 90%% of %d/s %.1fs later; step down at %.1fs, sink within 50%% of %d/s %.1fs later (-1: never); %d rescales: %s; output exactly once; best sink second %s/s; machine shared, figures vary",
		stepKeys, res.Extra["schedule"], up, stepHigh, upS, down, stepLow, downS, len(r.rescales), strings.Join(each, ", "), human(best))
	return res
}
