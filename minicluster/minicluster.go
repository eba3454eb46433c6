// Package minicluster starts a scheduler and task managers inside one
// process, talking gRPC on loopback exactly as a real cluster does. It is
// what `floe run` runs a job on, and what tests use for a cluster without
// processes.
package minicluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/floe-stream/floe/host/connector/stdout"
	"github.com/floe-stream/floe/host/metrics"
	"github.com/floe-stream/floe/host/taskmanager"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/confine"
	"github.com/floe-stream/floe/internal/tlsconf"
	"github.com/floe-stream/floe/scheduler"
	"github.com/floe-stream/floe/storage/ckstore"
)

// Config configures a mini-cluster.
type Config struct {
	// DataDir holds the scheduler's and task managers' data.
	DataDir string
	// TaskManagers is how many task managers to start (default 1), each
	// with Slots slots (default 1).
	TaskManagers int
	Slots        int
	// RESTAddr serves the REST API when set.
	RESTAddr string
	// Engine is shared by the scheduler and task managers; nil makes one.
	Engine *udf.Engine
	// CheckpointStorage is the scheduler's default checkpoint URL.
	CheckpointStorage string
	// HeartbeatTimeout is the scheduler's; 0 means its default.
	HeartbeatTimeout time.Duration
	CallTimeout      time.Duration
	BatchSize        int
	Stdout           *stdout.Writer
	Logger           *slog.Logger
	// Runtime is handed to every task manager (taskmanager.Config.Runtime).
	Runtime *taskmanager.Runtime
	// OpenStore opens checkpoint storage for the scheduler and every task
	// manager; nil opens stores by URL (ckstore.OpenerFor). Tests pass a
	// faulty store here.
	OpenStore ckstore.Opener
	// MaxTasks is each task manager's taskmanager.Config.MaxTasks.
	MaxTasks int
	// AllowedPaths are the directories jobs may read and write below, for
	// the scheduler and every task manager (docs/security.md); empty
	// restricts nothing. The task managers may also use the cluster's own
	// DataDir and CheckpointStorage, where the cluster keeps checkpoints.
	AllowedPaths []string
	// MetricsAddr, when set, serves the task managers' Prometheus metrics,
	// all in one Exporter, at /metrics on this address (host:port; port 0
	// picks a free port).
	MetricsAddr string
	// TLS, when set, is the identity of the scheduler and of every task
	// manager: their gRPC connections, and the REST API, use TLS as a
	// cluster's do (scheduler.Config.TLS). It must hold a scheduler's
	// certificate, as the task managers check that the scheduler they
	// dial presents one. Nil is plaintext.
	TLS *tlsconf.Config
	// PartialRescale is scheduler.Config.PartialRescale.
	PartialRescale bool
}

// Cluster is a running mini-cluster.
type Cluster struct {
	Scheduler    *scheduler.Server
	TaskManagers []*taskmanager.TaskManager

	stops   []context.CancelFunc
	cancel  context.CancelFunc
	metrics *metrics.Server
	wg      sync.WaitGroup
	errs    []error
	mu      sync.Mutex
}

// Start starts the cluster and waits until every task manager has
// registered.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	if cfg.TaskManagers == 0 {
		cfg.TaskManagers = 1
	}
	if cfg.Slots == 0 {
		cfg.Slots = 1
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.TLS != nil && cfg.TLS.Role() != tlsconf.Scheduler {
		return nil, fmt.Errorf("minicluster: the TLS certificate is for role %q; a mini-cluster runs a scheduler and needs a scheduler's certificate", cfg.TLS.Role())
	}
	// NB: the scheduler keeps its jobs in a log in its data directory, but a
	// mini-cluster starts with new task managers, which could adopt no task
	// of an old job: a job left running by a killed mini-cluster would only
	// be restarted, beside the new one. It starts with an empty log.
	if err := os.RemoveAll(filepath.Join(cfg.DataDir, "scheduler", "raft")); err != nil {
		return nil, fmt.Errorf("minicluster: clearing the scheduler's log: %w", err)
	}
	sched, err := scheduler.NewServer(scheduler.Config{
		RPCAddr: "127.0.0.1:0", RESTAddr: cfg.RESTAddr, DataDir: filepath.Join(cfg.DataDir, "scheduler"),
		Engine: cfg.Engine, Logger: cfg.Logger.With("component", "scheduler"),
		CheckpointStorage: cfg.CheckpointStorage, HeartbeatTimeout: cfg.HeartbeatTimeout,
		HeartbeatInterval: cfg.HeartbeatTimeout / 10, OpenStore: cfg.OpenStore, TLS: cfg.TLS, AllowedPaths: cfg.AllowedPaths,
		PartialRescale: cfg.PartialRescale,
	})
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	c := &Cluster{Scheduler: sched, cancel: cancel}
	c.run(func() error { return sched.Run(runCtx) })
	exporter := metrics.New(metrics.Config{})
	if cfg.MetricsAddr != "" {
		if c.metrics, err = metrics.Listen(cfg.MetricsAddr, exporter, metricsTLS(cfg.TLS)); err != nil {
			c.Close()
			return nil, err
		}
		c.run(c.metrics.Serve)
	}
	for i := 0; i < cfg.TaskManagers; i++ {
		tm, err := taskmanager.New(taskmanager.Config{
			Scheduler: sched.RPCAddr(), RPCAddr: "127.0.0.1:0", Slots: cfg.Slots,
			DataDir: filepath.Join(cfg.DataDir, fmt.Sprintf("taskmanager-%d", i)), Engine: cfg.Engine,
			CallTimeout: cfg.CallTimeout, BatchSize: cfg.BatchSize, Stdout: cfg.Stdout, Runtime: cfg.Runtime,
			OpenStore: cfg.OpenStore, Metrics: exporter,
			Logger:   cfg.Logger.With("component", "taskmanager", "index", i),
			MaxTasks: cfg.MaxTasks, TLS: cfg.TLS, AllowedPaths: taskManagerRoots(cfg),
		})
		if err != nil {
			c.Close()
			return nil, err
		}
		tmCtx, stop := context.WithCancel(runCtx)
		c.TaskManagers = append(c.TaskManagers, tm)
		c.stops = append(c.stops, stop)
		c.run(func() error { return tm.Run(tmCtx) })
	}
	if err := c.awaitTaskManagers(ctx, cfg.TaskManagers); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) run(fn func() error) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if err := fn(); err != nil {
			c.mu.Lock()
			c.errs = append(c.errs, err)
			c.mu.Unlock()
		}
	}()
}

func (c *Cluster) awaitTaskManagers(ctx context.Context, n int) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		tms, _ := c.Scheduler.TaskManagers(ctx)
		if len(tms) >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("minicluster: %d of %d task managers registered within 30s", len(tms), n)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// metricsTLS is how /metrics is served with the cluster's TLS identity:
// HTTPS, a scraper's certificate optional, as on the REST API; nil when
// the cluster runs plaintext.
func metricsTLS(c *tlsconf.Config) *tls.Config {
	if c == nil {
		return nil
	}
	return c.Server(true)
}

// MetricsAddr returns the address the cluster serves its task managers'
// metrics on, or "" when it serves none.
func (c *Cluster) MetricsAddr() string {
	if c.metrics == nil {
		return ""
	}
	return c.metrics.Addr()
}

// StopTaskManager stops task manager i, as if its process died: its tasks
// are cancelled and its endpoints close.
func (c *Cluster) StopTaskManager(i int) { c.stops[i]() }

// Drain waits until every task manager is idle (taskmanager.Idle) or ctx
// is done. After a job has ended, a Drain before Close lets its tasks end
// and report their end, instead of being canceled by the task managers'
// stop and failing to report to a scheduler that is gone.
func (c *Cluster) Drain(ctx context.Context) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if !slices.ContainsFunc(c.TaskManagers, func(tm *taskmanager.TaskManager) bool { return !tm.Idle() }) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Close stops the task managers and the scheduler and returns what went
// wrong while they ran.
func (c *Cluster) Close() error {
	c.cancel()
	if c.metrics != nil {
		c.metrics.Close()
	}
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return errors.Join(c.errs...)
}

// taskManagerRoots returns the allowed paths of the cluster's task
// managers: the cluster's, and where the cluster itself keeps checkpoints,
// which jobs are sent to write (the scheduler trusts its own default
// storage, so must they).
func taskManagerRoots(cfg Config) []string {
	if len(cfg.AllowedPaths) == 0 {
		return nil
	}
	roots := append(slices.Clone(cfg.AllowedPaths), cfg.DataDir)
	if dir, local, err := confine.StoreDir(cfg.CheckpointStorage); err == nil && local {
		roots = append(roots, dir)
	}
	return roots
}
