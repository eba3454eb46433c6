package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/floe-stream/floe/host/connector/builtin" // the connectors that specs name
	"github.com/floe-stream/floe/host/connector/stdout"
	"github.com/floe-stream/floe/host/taskmanager"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/minicluster"
	"github.com/floe-stream/floe/scheduler/api"
)

// stringList collects a repeated flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// runFlags are the flags of floe run.
type runFlags struct {
	set         stringList
	parallelism int
	dataDir     string
	maxMemory   int64
	caps        *guestCaps
	maxTasks    int
	udfTimeout  time.Duration
	logLevel    string
	progress    time.Duration
	// checkpointInterval, if not 0, sets Submission.CheckpointInterval.
	checkpointInterval time.Duration
	// fromSavepoint and allowNonRestored set Submission.FromSavepoint and
	// Submission.AllowNonRestoredState.
	fromSavepoint    string
	allowNonRestored bool
	// runtime is the process's task runtime tuning.
	runtime *taskmanager.Runtime
	// metricsAddr serves the task managers' Prometheus metrics when set.
	metricsAddr string
	// tls secures the mini-cluster's connections when given.
	tls *tlsFlags
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.set, "set", "set a job parameter, `key=value` (repeatable)")
	fs.IntVar(&f.parallelism, "parallelism", 0, "default parallelism of the job, overriding the spec's (0 keeps it)")
	fs.DurationVar(&f.checkpointInterval, "checkpoint-interval", 0, checkpointIntervalHelp+" (0 keeps the spec's)")
	fs.StringVar(&f.fromSavepoint, "from-savepoint", "", fromSavepointHelp)
	fs.BoolVar(&f.allowNonRestored, "allow-non-restored-state", false, allowNonRestoredHelp)
	fs.StringVar(&f.dataDir, "data-dir", "", "directory for state and the compiled-module cache (default: a temporary directory for state, the user cache dir for modules)")
	fs.Int64Var(&f.maxMemory, "max-memory", udf.DefaultMaxMemory, "memory cap of each operator instance, in bytes")
	f.caps = guestCapFlags(fs)
	fs.IntVar(&f.maxTasks, "max-tasks", taskmanager.DefaultMaxTasks, maxTasksHelp)
	fs.DurationVar(&f.udfTimeout, "udf-timeout", udf.DefaultCallTimeout, "how long one call into an operator (one batch) may run before it is stopped and the job fails; 0 runs operators without the fuel checks that stop them, a few percent faster, for trusted code only (a call that never returns then hangs the job)")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.DurationVar(&f.progress, "progress", 5*time.Second, "interval of progress lines in the log (0 disables them)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve Prometheus metrics of the job's tasks at /metrics on this HOST:PORT (docs/metrics.md); none when empty")
	f.tls = addTLSFlags(fs, false)
}

func runCmd(args []string, stdoutW, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := runFlags{runtime: taskmanager.TuneRuntime()}
	f.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: floe run JOB.yaml [flags]\n\n"+
			"Runs a job on an embedded mini-cluster: every subtask in this process, state\n"+
			"in --data-dir. A job with bounded sources exits 0 when it has finished; Ctrl-C\n"+
			"stops a job cleanly; a failing operator exits 1 with its message.\n\n"+
			"Task threads run at a lower priority (nice +10), GOMAXPROCS follows the CPUs\n"+
			"plus the running tasks, and GOGC defaults to 400 under a memory limit of 3/4\n"+
			"of the machine's (or the container's) memory, so that state lookups and RPCs\n"+
			"are served promptly while tasks keep every CPU busy; the GOMAXPROCS, GOGC and\n"+
			"GOMEMLIMIT environment variables override these.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	spec, rest, err := splitSpec(args)
	if err == nil {
		err = fs.Parse(rest)
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil && spec == "" && fs.NArg() > 0 {
		spec, err = fs.Arg(0), checkExtra(fs.Args()[1:])
	} else if err == nil {
		err = checkExtra(fs.Args())
	}
	if err == nil && spec == "" {
		err = errors.New("no job spec given")
	}
	if err != nil {
		fmt.Fprintf(stderr, "floe run: %v\n", err)
		fs.Usage()
		return 2
	}
	return runJob(spec, &f, stdoutW, stderr)
}

// splitSpec takes the job spec path off the front of args, so flags may come
// before or after it.
func splitSpec(args []string) (string, []string, error) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:], nil
	}
	return "", args, nil
}

func checkExtra(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected arguments %q", args)
	}
	return nil
}

func runJob(specPath string, f *runFlags, stdoutW, stderr io.Writer) int {
	log, err := newLogger(stderr, f.logLevel)
	if err != nil {
		fmt.Fprintf(stderr, "floe run: %v\n", err)
		return 2
	}
	job, sub, err := loadJob(specPath, f)
	if err != nil {
		fmt.Fprintf(stderr, "floe run: %v\n", err)
		return 2
	}
	tlsc, err := f.tls.load()
	if err != nil {
		fmt.Fprintf(stderr, "floe run: %v\n", err)
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	dataDir := f.dataDir
	if dataDir == "" {
		if dataDir, err = os.MkdirTemp("", "floe-run-"); err != nil {
			fmt.Fprintf(stderr, "floe run: %v\n", err)
			return 1
		}
		defer os.RemoveAll(dataDir)
	}
	engine, err := udf.NewEngine(ctx, udf.Config{
		CacheDir: cacheDir(f.dataDir), MaxMemory: f.maxMemory, Log: stderr, Uninterruptible: f.udfTimeout == 0,
		MaxCallOutput: f.caps.callOutput, MaxRecordSize: f.caps.record,
	})
	if err != nil {
		fmt.Fprintf(stderr, "floe run: %v\n", err)
		return 1
	}
	defer engine.Close(context.Background())
	cluster, err := minicluster.Start(ctx, minicluster.Config{
		DataDir: dataDir, Slots: slotsFor(job), Engine: engine, CallTimeout: f.udfTimeout, Runtime: f.runtime, MaxTasks: f.maxTasks,
		Stdout: stdout.NewWriter(stdoutW), Logger: log, MetricsAddr: f.metricsAddr, TLS: tlsc,
	})
	if err != nil {
		fmt.Fprintf(stderr, "floe run: starting the mini-cluster: %v\n", err)
		return 1
	}
	defer cluster.Close()
	if a := cluster.MetricsAddr(); a != "" {
		log.Info("serving metrics", "url", "http://"+a+"/metrics")
	}
	return runOnCluster(ctx, cluster.Scheduler, sub, f.progress, log, stderr)
}

// runOnCluster submits the job, follows it to its end and returns the exit
// code: 0 finished, 1 failed, 130 interrupted.
func runOnCluster(ctx context.Context, svc api.Service, sub api.Submission, progress time.Duration, log *slog.Logger, stderr io.Writer) int {
	start := time.Now()
	id, err := svc.Submit(ctx, sub)
	if err != nil {
		fmt.Fprintf(stderr, "floe run: %v\n", err)
		return 2
	}
	st, err := follow(ctx, svc, id, progress, log)
	if ctx.Err() != nil {
		svc.Cancel(context.Background(), id)
		log.Info("job stopped", "job", id, "reason", "interrupted")
		return 130
	}
	if err != nil {
		fmt.Fprintf(stderr, "floe run: %v\n", err)
		return 1
	}
	if st.State != api.JobFinished {
		fmt.Fprintf(stderr, "floe run: job %s %s: %s\n", st.Name, strings.ToLower(st.State), st.Message)
		return 1
	}
	in, out := totals(st)
	d := time.Since(start)
	log.Info("job finished", "job", st.Name, "records_in", in, "records_out", out, "duration", d.Round(time.Millisecond),
		"records_out_per_sec", int64(float64(out)/d.Seconds()))
	return 0
}

// follow polls the job until it ends or ctx is done, logging progress.
func follow(ctx context.Context, svc api.Service, id string, progress time.Duration, log *slog.Logger) (api.JobStatus, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	lastLog, lastState := time.Now(), ""
	for {
		st, err := svc.Job(context.Background(), id)
		if err != nil {
			return st, err
		}
		if st.State != lastState {
			log.Info("job "+strings.ToLower(st.State), "job", st.Name, "id", id, "message", st.Message)
			lastState = st.State
		}
		if api.Terminal(st.State) {
			return st, nil
		}
		if progress > 0 && time.Since(lastLog) >= progress {
			in, out := totals(st)
			log.Info("progress", "job", st.Name, "records_in", in, "records_out", out)
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-tick.C:
		}
	}
}

// totals returns what the first stage read and the last stage wrote.
func totals(st api.JobStatus) (in, out int64) {
	if n := len(st.Vertices); n > 0 {
		return st.Vertices[0].RecordsIn, st.Vertices[n-1].RecordsOut
	}
	return 0, 0
}

// slotsFor is the number of slots a job needs: its largest parallelism.
func slotsFor(job *jobspec.Job) int {
	n := 0
	for i := range job.Sources {
		n = max(n, job.SourceParallelism(i))
	}
	for i := range job.Operators {
		n = max(n, job.OperatorParallelism(i))
	}
	for i := range job.Sinks {
		n = max(n, job.SinkParallelism(i))
	}
	return n
}

// loadJob validates the spec locally and reads its modules, so a bad spec
// is reported before anything starts.
func loadJob(path string, f *runFlags) (*jobspec.Job, api.Submission, error) {
	set, err := jobspec.ParseSet(f.set)
	if err != nil {
		return nil, api.Submission{}, err
	}
	job, err := jobspec.Load(path, set)
	if err != nil {
		return nil, api.Submission{}, err
	}
	if f.parallelism != 0 {
		if err := job.WithParallelism(f.parallelism); err != nil {
			return nil, api.Submission{}, err
		}
	}
	if err := job.CheckModules(); err != nil {
		return nil, api.Submission{}, err
	}
	p, err := plan.Build(job)
	if err != nil {
		return nil, api.Submission{}, err
	}
	if err := checkTasks(p, f.maxTasks); err != nil {
		return nil, api.Submission{}, err
	}
	spec, err := os.ReadFile(path)
	if err != nil {
		return nil, api.Submission{}, err
	}
	sub := api.Submission{Spec: spec, Params: set, Parallelism: f.parallelism, Modules: map[string][]byte{},
		CheckpointInterval: f.checkpointInterval, FromSavepoint: f.fromSavepoint, AllowNonRestoredState: f.allowNonRestored}
	for name, p := range job.Modules {
		if sub.Modules[name], err = os.ReadFile(p); err != nil {
			return nil, api.Submission{}, err
		}
	}
	return job, sub, nil
}

// checkTasks refuses a plan of more tasks than the process may run: floe
// run runs every task of a job, each on an OS thread of its own.
func checkTasks(p *plan.Plan, max int) error {
	n := 0
	for _, s := range p.Stages {
		n += s.Parallelism
	}
	if n > max {
		return fmt.Errorf("the job has %d tasks (stages times their parallelism), more than the %d this process may run, each on an OS thread of its own (--max-tasks); lower its parallelism", n, max)
	}
	return nil
}

// cacheDir is where compiled modules are kept between runs.
func cacheDir(dataDir string) string {
	if dataDir != "" {
		return filepath.Join(dataDir, "wasm-cache")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "floe", "wasm-cache")
	}
	return ""
}

func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %v", err)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lv})), nil
}
