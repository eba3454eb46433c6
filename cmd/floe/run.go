package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/floe-stream/floe/host"
	"github.com/floe-stream/floe/internal/connector/stdout"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/localrun"
	"github.com/floe-stream/floe/internal/plan"
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
	udfTimeout  time.Duration
	logLevel    string
	progress    time.Duration
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.set, "set", "set a job parameter, `key=value` (repeatable)")
	fs.IntVar(&f.parallelism, "parallelism", 0, "default parallelism of the job, overriding the spec's (0 keeps it)")
	fs.StringVar(&f.dataDir, "data-dir", "", "directory for state and the compiled-module cache (default: a temporary directory for state, the user cache dir for modules)")
	fs.Int64Var(&f.maxMemory, "max-memory", host.DefaultMaxMemory, "memory cap of each operator instance, in bytes")
	fs.DurationVar(&f.udfTimeout, "udf-timeout", host.DefaultCallTimeout, "how long one call into an operator (one batch) may run before it is stopped and the job fails; 0 runs operators uninterruptible, 2-3x faster for Go modules, for trusted code only (a call that never returns then hangs the job)")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.DurationVar(&f.progress, "progress", 5*time.Second, "interval of progress lines in the log (0 disables them)")
}

func runCmd(args []string, stdoutW, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f runFlags
	f.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: floe run JOB.yaml [flags]\n\n"+
			"Runs a job on an embedded mini-cluster: every subtask in this process, state\n"+
			"in --data-dir. A job with bounded sources exits 0 when it has finished; Ctrl-C\n"+
			"stops a job cleanly; a failing operator exits 1 with its message.\n\nFlags:\n")
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
	job, err := loadJob(specPath, f)
	if err != nil {
		fmt.Fprintf(stderr, "floe run: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	engine, err := host.NewEngine(ctx, host.Config{
		CacheDir: cacheDir(f.dataDir), MaxMemory: f.maxMemory, Log: stderr, Uninterruptible: f.udfTimeout == 0,
	})
	if err != nil {
		fmt.Fprintf(stderr, "floe run: %v\n", err)
		return 1
	}
	defer engine.Close(context.Background())
	res, err := localrun.Run(ctx, job, localrun.Options{
		DataDir: f.dataDir, Engine: engine, Logger: log, CallTimeout: f.udfTimeout,
		Stdout: stdout.NewWriter(stdoutW), Progress: f.progress,
	})
	switch {
	case err != nil && ctx.Err() != nil:
		log.Info("job stopped", "job", job.Name, "reason", "interrupted")
		return 130
	case err != nil:
		fmt.Fprintf(stderr, "floe run: job %s failed: %v\n", job.Name, err)
		return 1
	}
	log.Info("job finished", "job", job.Name, "records_in", res.RecordsIn, "records_out", res.RecordsOut,
		"duration", res.Duration.Round(time.Millisecond),
		"records_in_per_sec", int64(float64(res.RecordsIn)/res.Duration.Seconds()))
	return 0
}

func loadJob(path string, f *runFlags) (*jobspec.Job, error) {
	set, err := jobspec.ParseSet(f.set)
	if err != nil {
		return nil, err
	}
	job, err := jobspec.Load(path, set)
	if err != nil {
		return nil, err
	}
	if f.parallelism != 0 {
		if err := job.WithParallelism(f.parallelism); err != nil {
			return nil, err
		}
	}
	if err := job.CheckModules(); err != nil {
		return nil, err
	}
	if _, err := plan.Build(job); err != nil {
		return nil, err
	}
	return job, nil
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
