// Package localrun runs a whole job inside one process: every subtask of
// every stage as a goroutine, wired by bounded in-process inboxes. It is
// what `floe run` executes, and the same tasks are what a task manager runs
// when the job is spread over a cluster.
package localrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/floe-stream/floe/host"
	"github.com/floe-stream/floe/internal/connector/stdout"
	"github.com/floe-stream/floe/internal/exchange"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/internal/task"
)

// Options configures a local run.
type Options struct {
	// DataDir holds the job's state (pebble backend); it is created if
	// missing. Empty means a temporary directory removed at the end.
	DataDir string
	// Engine runs the job's modules; nil makes one for the run.
	Engine *host.Engine
	// Logger receives progress and guest logs; nil discards them.
	Logger *slog.Logger
	// Stdout receives what stdout sinks write; nil means os.Stdout.
	Stdout *stdout.Writer
	// BatchSize is records per batch; 0 means task.DefaultBatchSize.
	BatchSize int
	// InboxBatches is how many batches each inbox holds per sender; 0
	// means 4.
	InboxBatches int
	// CallTimeout bounds each call into a guest; 0 means the host default.
	CallTimeout time.Duration
	// Progress is the interval of progress lines in the log; 0 disables
	// them.
	Progress time.Duration
}

// Result reports a finished run.
type Result struct {
	// RecordsIn is what the first stage's tasks read from the source.
	RecordsIn int64
	// RecordsOut is what the last stage's tasks wrote to the sink.
	RecordsOut int64
	Duration   time.Duration
}

// Run runs job to completion. A bounded job returns when every record has
// reached the sink; an unbounded one runs until ctx is cancelled, which
// returns ctx's error. The first task failure cancels the others and is
// returned.
func Run(ctx context.Context, job *jobspec.Job, opts Options) (*Result, error) {
	start := time.Now()
	p, err := plan.Build(job)
	if err != nil {
		return nil, err
	}
	r, err := newRun(ctx, p, opts)
	if err != nil {
		return nil, err
	}
	defer r.cleanup(ctx)
	r.log.Info("running job", "job", job.Name, "stages", len(p.Stages), "plan", p.String())
	if err := r.runTasks(ctx); err != nil {
		return nil, err
	}
	res := &Result{Duration: time.Since(start)}
	res.RecordsIn, res.RecordsOut = r.totals()
	return res, nil
}

// run is one execution of a plan.
type run struct {
	p       *plan.Plan
	opts    Options
	log     *slog.Logger
	engine  *host.Engine
	ownsEng bool
	dataDir string
	tempDir bool
	modules moduleCache
	stages  [][]*task.Task
}

func newRun(ctx context.Context, p *plan.Plan, opts Options) (*run, error) {
	r := &run{p: p, opts: opts, log: opts.Logger, engine: opts.Engine}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.engine == nil {
		e, err := host.NewEngine(ctx, host.Config{})
		if err != nil {
			return nil, err
		}
		r.engine, r.ownsEng = e, true
	}
	if err := r.makeDataDir(); err != nil {
		r.cleanup(ctx)
		return nil, err
	}
	r.modules = moduleCache{engine: r.engine, paths: p.Job.Modules, compiled: map[string]*host.Module{}}
	r.build()
	return r, nil
}

func (r *run) makeDataDir() error {
	r.dataDir = r.opts.DataDir
	if r.dataDir == "" {
		d, err := os.MkdirTemp("", "floe-run-")
		if err != nil {
			return err
		}
		r.dataDir, r.tempDir = d, true
	}
	return os.MkdirAll(r.dataDir, 0o755)
}

// build creates every task and the inboxes between stages.
func (r *run) build() {
	env := task.Env{
		Module:      r.modules.get,
		OpenState:   r.openState,
		Stdout:      r.opts.Stdout,
		Logger:      r.log,
		BatchSize:   r.opts.BatchSize,
		CallTimeout: r.opts.CallTimeout,
	}
	if env.Stdout == nil {
		env.Stdout = stdout.NewWriter(os.Stdout)
	}
	perSender := r.opts.InboxBatches
	if perSender == 0 {
		perSender = 4
	}
	var inboxes []*exchange.Inbox
	for si := range r.p.Stages {
		st := &r.p.Stages[si]
		var next []*exchange.Inbox
		var senders []exchange.Sender
		if si+1 < len(r.p.Stages) {
			down := r.p.Stages[si+1].Parallelism
			for i := 0; i < down; i++ {
				in := exchange.NewInbox(st.Parallelism, perSender*st.Parallelism)
				next = append(next, in)
				senders = append(senders, in)
			}
		}
		var tasks []*task.Task
		for sub := 0; sub < st.Parallelism; sub++ {
			io := task.IO{Out: senders}
			if si > 0 {
				io.In = inboxes[sub]
			}
			tasks = append(tasks, task.New(task.Spec{Plan: r.p, Stage: si, Subtask: sub}, env, io))
		}
		r.stages = append(r.stages, tasks)
		inboxes = next
	}
}

// runTasks runs every task and waits for all of them. The first failure
// cancels the rest; it is the error returned, not the cancellations it
// caused.
func (r *run) runTasks(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	var tasksDone sync.WaitGroup
	var once sync.Once
	var first error
	for _, tasks := range r.stages {
		for _, t := range tasks {
			tasksDone.Add(1)
			go func() {
				defer tasksDone.Done()
				err := t.Run(ctx)
				if err != nil && ctx.Err() == nil {
					once.Do(func() { first = err })
					cancel(err)
					r.log.Error("task failed", "task", t.Name(), "err", err)
				}
			}()
		}
	}
	done := make(chan struct{})
	if r.opts.Progress > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.reportProgress(ctx, done, r.opts.Progress)
		}()
	}
	tasksDone.Wait()
	close(done)
	wg.Wait()
	if first != nil {
		return first
	}
	return context.Cause(ctx)
}

// totals sums the records read by the first stage and written by the last.
func (r *run) totals() (in, out int64) {
	for _, t := range r.stages[0] {
		in += t.Metrics.RecordsIn.Load()
	}
	for _, t := range r.stages[len(r.stages)-1] {
		out += t.Metrics.RecordsOut.Load()
	}
	return in, out
}

// reportProgress logs the totals every interval until done or ctx ends.
func (r *run) reportProgress(ctx context.Context, done <-chan struct{}, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	lastIn, last := int64(0), time.Now()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case now := <-tick.C:
			in, out := r.totals()
			rate := float64(in-lastIn) / now.Sub(last).Seconds()
			r.log.Info("progress", "job", r.p.Job.Name, "records_in", in, "records_out", out, "records_in_per_sec", int64(rate))
			lastIn, last = in, now
		}
	}
}

func (r *run) cleanup(ctx context.Context) {
	r.modules.close(ctx)
	if r.ownsEng {
		r.engine.Close(ctx)
	}
	if r.tempDir {
		os.RemoveAll(r.dataDir)
	}
}

// stateDir is where subtask sub of stage si keeps its pebble state.
func (r *run) stateDir(si, sub int) string {
	return filepath.Join(r.dataDir, "state", r.p.Job.Name, fmt.Sprintf("stage-%d", si), fmt.Sprintf("subtask-%d", sub))
}

func (r *run) openState(si, sub int) (task.StateBackend, error) {
	return task.OpenState(r.p.Job.State.Backend, r.stateDir(si, sub))
}

// moduleCache compiles each module of the job once for all its subtasks.
type moduleCache struct {
	engine   *host.Engine
	paths    map[string]string
	mu       sync.Mutex
	compiled map[string]*host.Module
}

func (c *moduleCache) get(ctx context.Context, name string) (*host.Module, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.compiled[name]; ok {
		return m, nil
	}
	path, ok := c.paths[name]
	if !ok {
		return nil, fmt.Errorf("module %q is not declared in the job spec", name)
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("module %q: %w", name, err)
	}
	m, err := c.engine.Compile(ctx, name, wasm)
	if err != nil {
		return nil, err
	}
	c.compiled[name] = m
	return m, nil
}

func (c *moduleCache) close(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, m := range c.compiled {
		errs = append(errs, m.Close(ctx))
	}
	_ = errors.Join(errs...)
}
