package scheduler

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"path/filepath"
	"sync"
	"time"

	"google.golang.org/grpc"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/auth"
	"github.com/floe-stream/floe/internal/confine"
	"github.com/floe-stream/floe/internal/tlsconf"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/artifact"
	"github.com/floe-stream/floe/scheduler/internal/autoscale"
	"github.com/floe-stream/floe/scheduler/internal/journal"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
	"github.com/floe-stream/floe/scheduler/internal/replog"
	"github.com/floe-stream/floe/scheduler/internal/rest"
	"github.com/floe-stream/floe/scheduler/internal/schedmetrics"
	"github.com/floe-stream/floe/scheduler/internal/ui"
	"github.com/floe-stream/floe/storage/ckstore"
)

// Defaults of Config.
const (
	DefaultHeartbeatInterval = time.Second
	DefaultHeartbeatTimeout  = 10 * time.Second
	DefaultMaxUpload         = 64 << 20
)

// Config configures a Server.
type Config struct {
	// RPCAddr is where task managers reach the scheduler (gRPC), e.g.
	// "127.0.0.1:6123"; port 0 picks a free port.
	RPCAddr string
	// RESTAddr is where users reach the REST API; empty disables it.
	RESTAddr string
	// DataDir holds uploaded modules, the compiled-module cache and the job
	// log (DataDir/raft): a scheduler started again on the same directory
	// gets every job back.
	DataDir string
	// HeartbeatInterval is how often task managers heartbeat;
	// HeartbeatTimeout is how long without one before a task manager is
	// declared dead and its tasks failed.
	HeartbeatInterval time.Duration
	HeartbeatTimeout  time.Duration
	// PartialRescale lets a rescale that leaves some stages' parallelism
	// as it was keep those stages' tasks running (docs/rescaling.md).
	// Every member of an HA group must set the same.
	PartialRescale bool
	// MaxUpload bounds the size of a job submission over REST.
	MaxUpload int64
	// CompileSQL compiles the SQL scripts of POST /v1/sql into job specs
	// (cmd/floe passes internal/sqlc's compiler, so that the scheduler's
	// packages link no SQL parser); nil answers that route 501.
	CompileSQL func(script, name string, set map[string]string) (spec []byte, err error)
	// CheckpointStorage is where jobs' checkpoints go unless their spec
	// says otherwise: file:///path or s3://bucket/prefix. Empty means
	// file://<DataDir>/checkpoints.
	CheckpointStorage string
	// CheckpointOptions configure S3 checkpoint storage; unset fields come
	// from the AWS_* environment.
	CheckpointOptions ckstore.Options
	// OpenStore opens checkpoint and savepoint storage; nil means
	// ckstore.OpenerFor(CheckpointOptions). Tests pass stores that fail on
	// command (storage/ckstore/faulty).
	OpenStore ckstore.Opener
	// StateRetention keeps a finished job's keyed state queryable this
	// long; zero means DefaultStateRetention.
	StateRetention time.Duration
	// Engine validates uploaded modules; nil makes one.
	Engine *udf.Engine
	Logger *slog.Logger
	// Now is the scheduler's clock; nil means time.Now. Every event the
	// server feeds its job lifecycle carries the time Now gives.
	Now func() time.Time
	// AllowedPaths are the directories jobs may read and write below:
	// file sources and sinks, checkpoint storage named by a spec,
	// savepoint directories and fromSavepoint (docs/security.md, "What a
	// job may touch"). Empty restricts nothing. The rule the caller
	// applies (cmd/floe): the --allowed-paths flag, else DataDir alone once
	// the API is protected (TLS or tokens), else nothing; the cluster's own
	// CheckpointStorage is trusted and not checked.
	AllowedPaths []string
	// RaftAddr is this scheduler's address in a group of schedulers
	// (HOST:PORT), and RaftPeers the addresses of every member, this one
	// included; empty runs a single scheduler, whose job log is only in
	// DataDir. ElectionTimeout is the group's (zero: the log's default).
	RaftAddr        string
	RaftPeers       []string
	ElectionTimeout time.Duration
	// TLS, when set, secures every connection of the scheduler's: the
	// gRPC endpoint admits only task managers and schedulers with
	// certificates from the cluster CA, the REST API is HTTPS (client
	// certificates optional), and the Raft log, the forwarding of writes
	// to the leader and the calls to task managers use mutual TLS. Nil is
	// plaintext.
	TLS *tlsconf.Config
	// AuthTokens is a token file (`floe token create`, docs/security.md):
	// when set, the REST API serves only users with a token from it, each
	// as far as its role allows. Empty serves everyone.
	AuthTokens string
	// MemberToken is the token this member sends with its own requests to
	// the other members of its group: announcing itself to the leader
	// needs an admin's, asking a member's applied index a viewer's. It is
	// needed when the members check tokens.
	MemberToken string
}

// Server is a running scheduler. It implements api.Service.
type Server struct {
	floev1.UnimplementedSchedulerServer

	cfg       Config
	log       *slog.Logger
	artifacts *artifact.Store
	engine    *udf.Engine
	ownsEng   bool
	rpcLis    net.Listener
	restLis   net.Listener
	grpc      *grpc.Server
	http      *http.Server
	metrics   *schedmetrics.Metrics
	kick      chan struct{}
	// peers carries the requests to other members of the group; proxy
	// forwards REST writes to the leader through it.
	peers *http.Client
	proxy *httputil.ReverseProxy
	now   func() time.Time
	// users are the REST API's users; nil when it serves everyone.
	users *users

	// wg tracks the goroutines the server starts; ctx ends them.
	wg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc

	// rlog is the replicated log the job lifecycle is applied from.
	rlog *replog.Log

	// mu guards what follows. The lifecycle machine, in fsm, decides; the
	// server keeps only the I/O handles its actions need.
	mu  sync.Mutex
	fsm *journal.FSM
	// leading tells that the server carries out the actions of the
	// commands it applies: it leads and has caught up with the log. ready
	// tells that it has also fed the machine Lead, and serves.
	leading, ready bool
	// term is the log's term when the server became leader; every call to
	// a task manager carries it.
	term uint64
	// tms are the connections to task managers registered with this
	// leader, by id; dialed are the connections of registrations being
	// applied, by address.
	tms    map[string]*taskManager
	dialed map[string]*grpc.ClientConn
	// stores are the jobs' checkpoint storage, opened on first use.
	stores map[string]ckstore.Store

	paths pathRules
	// scalers are the autoscalers of the jobs that have one on, by job
	// (autoscaler.go): the leader's alone.
	scalers map[string]*autoscale.Scaler
}

var _ api.Service = (*Server)(nil)

// NewServer opens the scheduler's listeners; Run serves them.
func NewServer(cfg Config) (*Server, error) {
	if cfg.HeartbeatInterval == 0 {
		cfg.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if cfg.HeartbeatTimeout == 0 {
		cfg.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	if cfg.MaxUpload == 0 {
		cfg.MaxUpload = DefaultMaxUpload
	}
	if cfg.StateRetention == 0 {
		cfg.StateRetention = DefaultStateRetention
	}
	if cfg.OpenStore == nil {
		cfg.OpenStore = ckstore.OpenerFor(cfg.CheckpointOptions)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.CheckpointStorage == "" {
		abs, err := filepath.Abs(filepath.Join(cfg.DataDir, "checkpoints"))
		if err != nil {
			return nil, err
		}
		cfg.CheckpointStorage = "file://" + abs
	}
	s := &Server{cfg: cfg, log: cfg.Logger, kick: make(chan struct{}, 1), now: cfg.Now,
		tms: map[string]*taskManager{}, dialed: map[string]*grpc.ClientConn{}, stores: map[string]ckstore.Store{},
		scalers: map[string]*autoscale.Scaler{},
		fsm: journal.New(lifecycle.Config{HeartbeatInterval: cfg.HeartbeatInterval, HeartbeatTimeout: cfg.HeartbeatTimeout, Logger: cfg.Logger,
			PartialRescale: cfg.PartialRescale}, planSubmit)}
	var err error
	if s.paths.roots, err = confine.New(cfg.AllowedPaths); err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	t := newPeerTransport(cfg.TLS)
	s.peers, s.proxy = &http.Client{Transport: t}, s.newProxy(t)
	if err := s.open(); err != nil {
		s.close()
		return nil, err
	}
	if err := s.openLog(); err != nil {
		s.close()
		return nil, err
	}
	if cfg.RaftAddr == "" {
		// A single scheduler leads by the time its log is open: it takes
		// the lead before serving, so that a restarted one answers its
		// task managers at once.
		select {
		case v := <-s.rlog.LeaderChanges():
			if v {
				s.lead()
			}
		case <-time.After(time.Minute):
			s.close()
			return nil, errors.New("scheduler: the job log elected no leader within a minute")
		}
	}
	s.spawn(s.follow)
	if cfg.RaftAddr != "" {
		s.spawn(s.announcing)
	}
	return s, nil
}

// machine returns the job lifecycle. The caller holds s.mu.
func (s *Server) machine() *lifecycle.Machine { return s.fsm.Machine() }

func (s *Server) open() error {
	var err error
	if s.artifacts, err = artifact.Open(filepath.Join(s.cfg.DataDir, "artifacts")); err != nil {
		return err
	}
	s.engine = s.cfg.Engine
	if s.engine == nil {
		cache := filepath.Join(s.cfg.DataDir, "wasm-cache")
		if s.engine, err = udf.NewEngine(context.Background(), udf.Config{CacheDir: cache}); err != nil {
			return err
		}
		s.ownsEng = true
	}
	if s.rpcLis, err = net.Listen("tcp", s.cfg.RPCAddr); err != nil {
		return fmt.Errorf("scheduler: rpc listener: %w", err)
	}
	// Task managers register, heartbeat and report; a scheduler's
	// certificate is admitted too, as `floe run` hosts its task managers
	// in the scheduler's process with one identity.
	s.grpc = grpc.NewServer(s.cfg.TLS.ServerOptions(tlsconf.TaskManager, tlsconf.Scheduler)...)
	floev1.RegisterSchedulerServer(s.grpc, s)
	if s.cfg.RESTAddr != "" {
		if err := s.loadUsers(); err != nil {
			return err
		}
		if s.restLis, err = net.Listen("tcp", s.cfg.RESTAddr); err != nil {
			return fmt.Errorf("scheduler: rest listener: %w", err)
		}
		if s.cfg.TLS != nil {
			// Users come with bearer tokens, not certificates: any role,
			// or none, may connect; a member's forwarding presents its.
			s.restLis = tls.NewListener(s.restLis, s.cfg.TLS.Server(true))
		}
		s.metrics = schedmetrics.New(s.metricsSnapshot)
		opts := rest.Options{MaxUpload: s.cfg.MaxUpload, Logger: s.log, ViewerState: s.viewerState, Observe: s.metrics.ObserveRequest, CompileSQL: s.cfg.CompileSQL}
		if s.users != nil {
			opts.Users = s.users
		}
		h := rest.New(s, opts)
		metrics := rest.Protect(opts, http.MethodGet, "/metrics", auth.Viewer, s.metrics.Handler())
		s.http = newHTTPServer(ui.Handler(withMetrics(s.forwarding(h), metrics)), restTimeouts)
	}
	return nil
}

// RPCAddr returns the address task managers connect to.
func (s *Server) RPCAddr() string { return s.rpcLis.Addr().String() }

// RESTAddr returns the REST API's address, or "" when it is disabled.
func (s *Server) RESTAddr() string {
	if s.restLis == nil {
		return ""
	}
	return s.restLis.Addr().String()
}

// Run serves until ctx is done, then stops: it cancels running jobs' tasks
// on a best-effort basis and closes the listeners.
func (s *Server) Run(ctx context.Context) error {
	errc := make(chan error, 2)
	s.spawn(func() { errc <- s.grpc.Serve(s.rpcLis) })
	if s.http != nil {
		s.spawn(func() {
			if err := s.http.Serve(s.restLis); !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		})
	}
	s.spawn(s.loop)
	s.log.Info("scheduler listening", "rpc", s.RPCAddr(), "rest", s.RESTAddr())
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	s.close()
	return err
}

// spawn runs fn in a goroutine the server waits for on close.
func (s *Server) spawn(fn func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn()
	}()
}

func (s *Server) close() {
	s.mu.Lock()
	s.leading, s.ready = false, false
	s.mu.Unlock()
	s.cancel()
	if s.http != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s.http.Shutdown(sctx)
		cancel()
	}
	if s.grpc != nil {
		s.grpc.Stop()
	} else if s.rpcLis != nil {
		s.rpcLis.Close()
	}
	s.wg.Wait()
	s.peers.CloseIdleConnections()
	if s.rlog != nil {
		if err := s.rlog.Close(); err != nil {
			s.log.Warn("closing the job log", "err", err)
		}
	}
	s.mu.Lock()
	s.closeTaskManagers()
	s.mu.Unlock()
	if s.ownsEng {
		s.engine.Close(context.Background())
	}
}

// loop is the scheduler's clock: it ticks the job lifecycle, which
// declares silent task managers dead, places waiting jobs, restarts jobs
// whose restart delay has passed and advances checkpoints.
func (s *Server) loop() {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		case <-s.kick:
		}
		s.step()
	}
}

// wake makes the loop step soon.
func (s *Server) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// step does one round of the loop's work: a tick of the lifecycle, when
// the server leads and the tick would change something (a tick that would
// not is not journaled).
func (s *Server) step() {
	now := s.now()
	s.mu.Lock()
	due := s.ready && s.machine().Due(now)
	s.mu.Unlock()
	if due {
		s.event(journal.Tick{At: now})
	}
	s.autoscale(now)
}

// closeTaskManagers closes every connection to a task manager. The caller
// holds s.mu.
func (s *Server) closeTaskManagers() {
	for _, tm := range s.tms {
		tm.conn.Close()
	}
	for _, conn := range s.dialed {
		conn.Close()
	}
	s.tms, s.dialed = map[string]*taskManager{}, map[string]*grpc.ClientConn{}
}
