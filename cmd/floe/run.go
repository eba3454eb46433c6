package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	_ "github.com/floe-stream/floe/host/connector/builtin" // the connectors that specs name
	"github.com/floe-stream/floe/host/connector/stdout"
	"github.com/floe-stream/floe/host/taskmanager"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/confine"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/minicluster"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runFlags are the flags of floe run.
type runFlags struct {
	// locate, when set, rewrites a refused submission's error: floe sql
	// points the spec's problems back at the script.
	locate      func(error) error
	set         []string
	parallelism int
	dataDir     string
	maxMemory   int64
	caps        *guestCaps
	maxTasks    int
	udfTimeout  time.Duration
	logLevel    string
	// verbose logs at INFO rather than WARN when --log-level is not given.
	verbose  bool
	progress time.Duration
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
	// ui serves the REST API and the dashboard when set (ui.go).
	ui uiFlag
	// allowedPaths is --allowed-paths, as given.
	allowedPaths string
}

func (f *runFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.set, "set", nil, "set a job parameter, `key=value` (repeatable)")
	fs.IntVar(&f.parallelism, "parallelism", 0, "default parallelism of the job, overriding the spec's (0 keeps it)")
	fs.DurationVar(&f.checkpointInterval, "checkpoint-interval", 0, checkpointIntervalHelp+" (0 keeps the spec's)")
	fs.StringVar(&f.fromSavepoint, "from-savepoint", "", fromSavepointHelp)
	fs.BoolVar(&f.allowNonRestored, "allow-non-restored-state", false, allowNonRestoredHelp)
	fs.StringVar(&f.dataDir, "data-dir", "", "directory for state and the compiled-module cache (default: a temporary directory for state, the user cache dir for modules)")
	sizeVar(fs, &f.maxMemory, "max-memory", udf.DefaultMaxMemory, "memory cap of each operator instance")
	f.caps = guestCapFlags(fs)
	fs.IntVar(&f.maxTasks, "max-tasks", taskmanager.DefaultMaxTasks, maxTasksHelp)
	fs.DurationVar(&f.udfTimeout, "udf-timeout", udf.DefaultCallTimeout, "how long one call into an operator (one batch) may run before it is stopped and the job fails; 0 runs operators without the fuel checks that stop them, a few percent faster, for trusted code only (a call that never returns then hangs the job)")
	fs.StringVar(&f.logLevel, "log-level", "warn", "log level: debug, info, warn or error")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "log at INFO level (as --log-level info): the job's state changes and what the mini-cluster serves")
	fs.DurationVar(&f.progress, "progress", 5*time.Second, "interval of progress lines on stderr: the share of a file read, records/s and the time left; on a terminal one line refreshed every second instead (0 disables them)")
	fs.StringVar(&f.allowedPaths, "allowed-paths", "", allowedPathsHelp+"; default: none, a local run may touch any path")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve Prometheus metrics of the job's tasks at /metrics on this HOST:PORT (docs/metrics.md); none when empty")
	f.tls = addTLSFlags(fs, true)
	// NB: --ui alone means the default address, and --ui=HOST:PORT another;
	// normalizeArgs joins --ui HOST:PORT.
	fs.Var(&f.ui, "ui", "serve the REST API and the web dashboard (docs/dashboard.md) for the job; --ui alone serves them on "+defaultUIAddr+", --ui=HOST:PORT or --ui HOST:PORT elsewhere; the command then keeps serving after the job ends, until interrupted")
	fs.Lookup("ui").NoOptDefVal = defaultUIAddr
}

// runLong explains floe run.
const runLong = `Runs a job on an embedded mini-cluster: every subtask in this process, state
in --data-dir. A job with bounded sources exits 0 when it has finished; Ctrl-C
stops a job cleanly; a failing operator exits 1 with its message. Flags may
come before or after JOB.yaml, as for floe job submit.

It says little: progress lines while the job runs (--progress), warnings and
errors, and a summary when it ends; -v adds the INFO log.

Task threads run at a lower priority (nice +10), GOMAXPROCS follows the CPUs
plus the running tasks, and GOGC defaults to 400 under a memory limit of 3/4
of the machine's (or the container's) memory, so that state lookups and RPCs
are served promptly while tasks keep every CPU busy; the GOMAXPROCS, GOGC and
GOMEMLIMIT environment variables override these.`

func runCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use: "run JOB.yaml [--set key=value]... [--parallelism N] [flags]", Short: "run a job on an embedded mini-cluster until it ends",
		Long: runLong, Args: positional("JOB.yaml"),
	}
	var f runFlags
	f.register(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if f.verbose && !cmd.Flags().Changed("log-level") {
			f.logLevel = "info"
		}
		f.runtime = taskmanager.TuneRuntime()
		return codeError(runJob(args[0], &f, stdout, stderr))
	}
	return cmd
}

func runJob(specPath string, f *runFlags, stdoutW, stderr io.Writer) int {
	// NB: the mini-cluster's logger and this command's own lines write to
	// stderr from several goroutines; an *os.File takes that (and is kept,
	// to tell a terminal), an embedder's writer may not.
	if _, ok := stderr.(*os.File); !ok {
		stderr = &lockedWriter{w: stderr}
	}
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
	if err == nil {
		err = f.tls.checkBind(tlsc, log, listenAddr{"ui", f.ui.addr}, listenAddr{"metrics-addr", f.metricsAddr})
	}
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
		OnFirstCompile: func(module string) { fmt.Fprintf(stderr, "compiling module %s (once, cached)\n", module) },
	})
	if err != nil {
		fmt.Fprintf(stderr, "floe run: %v\n", err)
		return 1
	}
	defer engine.Close(context.Background())
	cluster, err := minicluster.Start(ctx, minicluster.Config{
		DataDir: dataDir, Slots: slotsFor(job), Engine: engine, CallTimeout: f.udfTimeout, Runtime: f.runtime, MaxTasks: f.maxTasks,
		Stdout: stdout.NewWriter(stdoutW), Logger: log, MetricsAddr: f.metricsAddr, TLS: tlsc, RESTAddr: f.ui.addr,
		AllowedPaths: confine.ParseList(f.allowedPaths),
	})
	if err != nil {
		fmt.Fprintf(stderr, "floe run: starting the mini-cluster: %v\n", err)
		return 1
	}
	defer cluster.Close()
	// NB: what the user asked to be served is said without -v.
	if a := cluster.MetricsAddr(); a != "" {
		fmt.Fprintf(stderr, "serving metrics at %s://%s/metrics\n", restScheme(tlsc), a)
	}
	if a := cluster.Scheduler.RESTAddr(); a != "" {
		fmt.Fprintf(stderr, "serving the dashboard at %s://%s/\n", restScheme(tlsc), a)
	}
	var svc api.Service = cluster.Scheduler
	if f.locate != nil {
		svc = locatingService{svc, f.locate}
	}
	code := runOnCluster(ctx, svc, sub, f.progress, log, stderr)
	drain, cancel := context.WithTimeout(context.Background(), cancelWait)
	defer cancel()
	cluster.Drain(drain) // NB: at worst the tasks left are canceled, with warnings
	// NB: a job that ran (0 finished, 1 failed) stays on the dashboard; a
	// submission refused (2) or an interrupt (130) ends the command.
	if f.ui.addr != "" && (code == 0 || code == 1) {
		fmt.Fprintf(stderr, "the job has ended; the dashboard stays up at %s://%s/ until interrupted\n", restScheme(tlsc), cluster.Scheduler.RESTAddr())
		<-ctx.Done()
	}
	return code
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
	st, err := follow(ctx, svc, id, newProgressLine(stderr, progress), log)
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "job stopped: %s %s (interrupted)\n", orDash(st.Name), strings.ToLower(cancelAndWait(svc, id)))
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
	fmt.Fprintln(stderr, summary(st.Name, in, out, time.Since(start)))
	return 0
}

// summary is the line floe run ends a finished job with.
func summary(name string, in, out int64, d time.Duration) string {
	rate := ""
	if s := d.Seconds(); s > 0 {
		rate = fmt.Sprintf(" (%s records/s out)", humanize.Comma(int64(float64(out)/s)))
	}
	return fmt.Sprintf("job finished: %s, %s records in, %s out, in %v%s",
		name, humanize.Comma(in), humanize.Comma(out), d.Round(time.Millisecond), rate)
}

// cancelAndWait cancels job id and waits, at most cancelWait, for it to
// end, so that its tasks are gone before the mini-cluster stops: tasks
// still running then would be canceled with warnings, and report their end
// to a scheduler that is gone. It returns the job's last state.
func cancelAndWait(svc api.Service, id string) string {
	ctx, cancel := context.WithTimeout(context.Background(), cancelWait)
	defer cancel()
	svc.Cancel(ctx, id)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := svc.Job(ctx, id)
		if err == nil && api.Terminal(st.State) {
			return st.State
		}
		select {
		case <-ctx.Done():
			return st.State
		case <-tick.C:
		}
	}
}

// cancelWait bounds how long an interrupted floe run waits for its job to
// end: a second Ctrl-C is not needed to stop a job whose tasks hang.
const cancelWait = 10 * time.Second

// follow polls the job until it ends or ctx is done, showing its progress.
func follow(ctx context.Context, svc api.Service, id string, progress *progressLine, log *slog.Logger) (api.JobStatus, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	defer progress.end()
	lastState := ""
	ms, _ := svc.(api.MetricsService)
	for {
		st, err := svc.Job(context.Background(), id)
		if err != nil {
			return st, err
		}
		if st.State != lastState {
			progress.end()
			log.Info("job "+strings.ToLower(st.State), "job", st.Name, "id", id, "message", st.Message)
			lastState = st.State
		}
		if api.Terminal(st.State) {
			return st, nil
		}
		if now := time.Now(); ms != nil && st.State == api.JobRunning && progress.due(now) {
			if m, err := ms.JobMetrics(context.Background(), id); err == nil {
				progress.show(now, m)
			}
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-tick.C:
		}
	}
}

// totals returns what the job's sources read and its sinks wrote: the
// records in of every vertex that reads no other, and the records out of
// every vertex no other reads.
func totals(st api.JobStatus) (in, out int64) {
	graph := false
	for _, v := range st.Vertices {
		graph = graph || len(v.Inputs) > 0
	}
	if n := len(st.Vertices); !graph && n > 0 {
		// NB: a status without edges (a scheduler before graphs) is a line.
		return st.Vertices[0].RecordsIn, st.Vertices[n-1].RecordsOut
	}
	read := make([]bool, len(st.Vertices))
	for _, v := range st.Vertices {
		for _, e := range v.Inputs {
			if e.Stage >= 0 && e.Stage < len(read) {
				read[e.Stage] = true
			}
		}
	}
	for i, v := range st.Vertices {
		if len(v.Inputs) == 0 {
			in += v.RecordsIn
		}
		if !read[i] {
			out += v.RecordsOut
		}
	}
	return in, out
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
	for name, ref := range job.ModuleRefs {
		return nil, api.Submission{}, fmt.Errorf("module %q is named by digest (%s): floe run runs module files only; give its path, or submit the job to a scheduler with floe job submit", name, ref)
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

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
