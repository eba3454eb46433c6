package taskmanager

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/floe-stream/floe/host/connector/stdout"
	"github.com/floe-stream/floe/host/metrics"
	"github.com/floe-stream/floe/host/tasklog"
	"github.com/floe-stream/floe/host/transport"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/confine"
	"github.com/floe-stream/floe/internal/tlsconf"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/storage/ckstore"
)

// Config configures a TaskManager.
type Config struct {
	// Schedulers are the RPC addresses of the schedulers: one, or every
	// member of a highly available group. The task manager registers with
	// the first that accepts (the leader; the others answer UNAVAILABLE)
	// and, when it loses that one, with the next that accepts.
	Schedulers []string
	// Scheduler is one more address, tried before Schedulers: the field of
	// callers that know a single scheduler.
	Scheduler string
	// SchedulerGrace is how long tasks keep running after the scheduler is
	// lost, while the task manager looks for a scheduler to re-register
	// with; a scheduler that adopts them takes them over, and the tasks no
	// scheduler took by then are canceled. 0 means DefaultSchedulerGrace;
	// negative cancels them as soon as the scheduler is lost.
	SchedulerGrace time.Duration
	// RPCAddr is where this task manager listens for the scheduler and
	// other task managers; port 0 picks a free port.
	RPCAddr string
	// Slots is how many pipeline slices it runs at once.
	Slots int
	// DataDir holds fetched modules, the compiled-module cache and state.
	DataDir string
	// Engine runs the modules; nil makes one with the engine options below.
	Engine          *udf.Engine
	MaxMemory       int64
	Uninterruptible bool
	// MaxCallOutput and MaxRecordSize are the engine's caps on output
	// (udf.Config); 0 means udf's defaults.
	MaxCallOutput, MaxRecordSize int64
	// MaxTasks is how many tasks may run at once; each holds an OS thread.
	// 0 means DefaultMaxTasks.
	MaxTasks int
	// StateMemory is the memory budget of each subtask's pebble state
	// store; 0 means pebblekv.Budget of the process's memory limit shared
	// by the slots.
	StateMemory int64
	// CallTimeout bounds each call into an operator.
	CallTimeout time.Duration
	// BatchSize is records per batch; 0 means the task default.
	BatchSize int
	// TaskNice is added to the nice value of each task's OS thread (on
	// Linux), so that state lookups, RPCs and heartbeats, on threads of
	// normal priority, are served promptly while tasks keep every CPU
	// busy. 0 means DefaultTaskNice; negative leaves task threads as they
	// are.
	TaskNice int
	// Runtime follows the process's running tasks to size GOMAXPROCS; nil
	// leaves GOMAXPROCS alone.
	Runtime *Runtime
	// InboxBatches is the credit each sender gets per channel; 0 means 4.
	InboxBatches int
	// CheckpointOptions configure S3 checkpoint storage; unset fields come
	// from the AWS_* environment.
	CheckpointOptions ckstore.Options
	// OpenStore opens checkpoint storage; nil means
	// ckstore.OpenerFor(CheckpointOptions).
	OpenStore ckstore.Opener
	// AllowedPaths are the directories the tasks may read and write below
	// (internal/confine): a task whose job names a file, a sink directory
	// or a checkpoint or savepoint directory outside them fails before it
	// opens anything. Empty restricts nothing. The task manager checks
	// against its own list, not one the scheduler sends, so that it does
	// not rely on whoever can reach its RPC port; with local checkpoint
	// storage, the list must include the cluster's (docs/security.md).
	AllowedPaths []string
	// Stdout receives stdout sinks' lines; nil means os.Stdout.
	Stdout *stdout.Writer
	Logger *slog.Logger
	// MetricsAddr, when set, serves Prometheus metrics at /metrics on
	// this address (host:port; port 0 picks a free port).
	MetricsAddr string
	// Metrics collects the metrics of the tasks; nil makes an Exporter of
	// the task manager's own. Task managers in one process share one, and
	// serve it once.
	Metrics *metrics.Exporter
	// TLS, when set, makes every connection mutual TLS: the task manager
	// serves only schedulers and task managers with certificates from the
	// cluster CA, and accepts only a scheduler's certificate from the
	// schedulers it dials and a task manager's (or a scheduler's) from its
	// peers. Nil is plaintext.
	TLS *tlsconf.Config
}

// DefaultTaskNice is Config.TaskNice's default. On 2 CPUs with a job at
// full speed and 20K state lookups/s, it took the lookups' p99 from 24 ms to
// 13 ms and their p50 from 6.5 ms to 3.3 ms, at no cost to the job's
// throughput (RATIONALE.md).
const DefaultTaskNice = 10

// DefaultSchedulerGrace is Config.SchedulerGrace's default: long enough for
// a standby scheduler to be elected and for this task manager to find it.
const DefaultSchedulerGrace = 30 * time.Second

// TaskManager is a running task manager.
type TaskManager struct {
	floev1.UnimplementedTaskManagerServer

	cfg      Config
	log      *slog.Logger
	lis      net.Listener
	grpc     *grpc.Server
	exchange *transport.Server
	engine   *udf.Engine
	ownsEng  bool
	scheds   []*schedConn
	lead     atomic.Pointer[schedConn]
	term     atomic.Int64
	modules  *modules
	peers    *peers
	stores   stores
	// logs keeps the recent guest log lines of the subtasks (logs.go).
	logs *tasklog.Store

	// exporter has the tasks' metrics; metricsSrv serves them when
	// Config.MetricsAddr is set.
	exporter   *metrics.Exporter
	metricsSrv *metrics.Server

	// roots are Config.AllowedPaths, resolved.
	roots *confine.Roots

	wg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	id       string
	interval time.Duration
	timeout  time.Duration
	tasks    map[taskKey]*running
	kept     map[taskKey]kept
	ends     map[taskKey]*floev1.TaskStatusUpdate
	canceled map[attemptKey]time.Time
}

// New opens the task manager's listener; Run registers and serves.
func New(cfg Config) (*TaskManager, error) {
	if cfg.Slots < 1 {
		return nil, fmt.Errorf("taskmanager: need at least one slot, got %d", cfg.Slots)
	}
	if cfg.MaxTasks == 0 {
		cfg.MaxTasks = DefaultMaxTasks
	}
	if cfg.Slots > cfg.MaxTasks {
		return nil, fmt.Errorf("taskmanager: %d slots, more than the %d tasks a process may run (--max-tasks)", cfg.Slots, cfg.MaxTasks)
	}
	if cfg.InboxBatches == 0 {
		cfg.InboxBatches = 4
	}
	if cfg.Scheduler != "" {
		cfg.Schedulers = append([]string{cfg.Scheduler}, cfg.Schedulers...)
	}
	if len(cfg.Schedulers) == 0 {
		return nil, fmt.Errorf("taskmanager: no scheduler address")
	}
	if cfg.SchedulerGrace == 0 {
		cfg.SchedulerGrace = DefaultSchedulerGrace
	}
	if cfg.TaskNice == 0 {
		cfg.TaskNice = DefaultTaskNice
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Stdout == nil {
		cfg.Stdout = stdout.NewWriter(os.Stdout)
	}
	roots, err := confine.New(cfg.AllowedPaths)
	if err != nil {
		return nil, fmt.Errorf("taskmanager: %w", err)
	}
	tm := &TaskManager{cfg: cfg, roots: roots, log: cfg.Logger, tasks: map[taskKey]*running{}, kept: map[taskKey]kept{}, ends: map[taskKey]*floev1.TaskStatusUpdate{}, canceled: map[attemptKey]time.Time{}}
	tm.ctx, tm.cancel = context.WithCancel(context.Background())
	if err := tm.open(); err != nil {
		tm.close()
		return nil, err
	}
	return tm, nil
}

func (tm *TaskManager) open() error {
	var err error
	if tm.exporter = tm.cfg.Metrics; tm.exporter == nil {
		tm.exporter = metrics.New(metrics.Config{})
	}
	if tm.cfg.MetricsAddr != "" {
		var tc *tls.Config
		if tm.cfg.TLS != nil {
			// HTTPS, a scraper's certificate optional, as on the
			// scheduler's REST API.
			tc = tm.cfg.TLS.Server(true)
		}
		if tm.metricsSrv, err = metrics.Listen(tm.cfg.MetricsAddr, tm.exporter, tc); err != nil {
			return fmt.Errorf("taskmanager: %w", err)
		}
	}
	tm.engine = tm.cfg.Engine
	if tm.engine == nil {
		tm.engine, err = udf.NewEngine(context.Background(), udf.Config{
			CacheDir: filepath.Join(tm.cfg.DataDir, "wasm-cache"), MaxMemory: tm.cfg.MaxMemory,
			MaxCallOutput: tm.cfg.MaxCallOutput, MaxRecordSize: tm.cfg.MaxRecordSize,
			Uninterruptible: tm.cfg.Uninterruptible, Log: os.Stderr,
		})
		if err != nil {
			return err
		}
		tm.ownsEng = true
	}
	for _, addr := range tm.cfg.Schedulers {
		conn, err := grpc.NewClient(addr, tm.cfg.TLS.DialOption(tlsconf.Scheduler))
		if err != nil {
			return fmt.Errorf("taskmanager: scheduler address %q: %w", addr, err)
		}
		tm.scheds = append(tm.scheds, &schedConn{addr: addr, index: len(tm.scheds), conn: conn, client: floev1.NewSchedulerClient(conn)})
	}
	tm.stores.opener = tm.cfg.OpenStore
	if tm.stores.opener == nil {
		tm.stores.opener = ckstore.OpenerFor(tm.cfg.CheckpointOptions)
	}
	tm.modules = newModules(tm.engine, tm.leader, filepath.Join(tm.cfg.DataDir, "artifacts"))
	tm.peers = newPeers(tm.cfg.TLS)
	tm.logs = tasklog.New(tasklog.Config{})
	if tm.lis, err = net.Listen("tcp", tm.cfg.RPCAddr); err != nil {
		return fmt.Errorf("taskmanager: listener: %w", err)
	}
	tm.exchange = transport.NewServer(transport.ServerOptions{})
	// The scheduler deploys, cancels and queries; peers send their
	// channels. `floe run` hosts task managers in the scheduler's process,
	// with the scheduler's identity.
	tm.grpc = grpc.NewServer(append(transport.GRPCServerOptions(), tm.cfg.TLS.ServerOptions(tlsconf.Scheduler, tlsconf.TaskManager)...)...)
	floev1.RegisterTaskManagerServer(tm.grpc, tm)
	floev1.RegisterExchangeServer(tm.grpc, tm.exchange)
	return nil
}

// Addr returns the address the task manager serves on.
func (tm *TaskManager) Addr() string { return tm.lis.Addr().String() }

// MetricsAddr returns the address the task manager serves its metrics on,
// or "" when it serves none.
func (tm *TaskManager) MetricsAddr() string {
	if tm.metricsSrv == nil {
		return ""
	}
	return tm.metricsSrv.Addr()
}

// Run registers with the scheduler, serves, and heartbeats until ctx is
// done; then it cancels its tasks and stops.
func (tm *TaskManager) Run(ctx context.Context) error {
	errc := make(chan error, 1)
	tm.spawn(func() { errc <- tm.grpc.Serve(tm.lis) })
	tm.log.Info("task manager listening", "rpc", tm.Addr(), "slots", tm.cfg.Slots, "schedulers", tm.cfg.Schedulers)
	tm.spawn(tm.heartbeats)
	if tm.metricsSrv != nil {
		tm.spawn(func() {
			if err := tm.metricsSrv.Serve(); err != nil {
				tm.log.Warn("serving metrics", "err", err)
			}
		})
		tm.log.Info("serving metrics", "addr", tm.MetricsAddr())
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	tm.close()
	return err
}

func (tm *TaskManager) spawn(fn func()) {
	tm.wg.Add(1)
	go func() {
		defer tm.wg.Done()
		fn()
	}()
}

func (tm *TaskManager) close() {
	tm.cancel()
	tm.cancelAll("task manager stopping")
	if tm.metricsSrv != nil {
		tm.metricsSrv.Close()
	}
	if tm.grpc != nil {
		tm.grpc.Stop()
	} else if tm.lis != nil {
		tm.lis.Close()
	}
	tm.wg.Wait()
	tm.mu.Lock()
	for k, kt := range tm.kept {
		kt.expiry = time.Time{}
		tm.kept[k] = kt
	}
	tm.mu.Unlock()
	tm.expireKept("")
	if tm.exchange != nil {
		tm.exchange.Close()
	}
	if tm.peers != nil {
		tm.peers.close()
	}
	for _, s := range tm.scheds {
		s.conn.Close()
	}
	if tm.ownsEng {
		tm.engine.Close(context.Background())
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// taskManagerID returns the id the scheduler gave this task manager.
func (tm *TaskManager) taskManagerID() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.id
}
