package replog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"

	"github.com/floe-stream/floe/internal/tlsconf"
)

// FSM is the state a log is applied to, on every member, in log order.
//
// Its methods are called from one goroutine at a time, never concurrently
// with each other. A command or snapshot passed in belongs to the FSM, which
// may keep it.
type FSM interface {
	// Apply applies one committed command. Its result is handed to the
	// proposer when this member is the leader that proposed it.
	Apply(index uint64, cmd []byte) any
	// Snapshot returns the whole state, to compact the log. It must not
	// change the state; the log calls it between two Applies.
	Snapshot() ([]byte, error)
	// Restore replaces the state with a snapshot's.
	Restore(snapshot []byte) error
}

// Config says where a member keeps its log and who its peers are.
type Config struct {
	// Dir holds the log, the stable store and snapshots; it is created if
	// missing.
	Dir string
	// ID is this member's id; default: Bind, or "single". In a group of
	// several members a member's ID is its Raft address, so ID must be
	// empty or equal to Bind.
	ID string
	// Bind is the Raft address HOST:PORT; "" is a single member with no
	// network. Spell it as Peers does: a member finds itself in Peers by
	// this string. NB: Leader reports the address the leader listens on,
	// with its host resolved.
	Bind string
	// Peers are the Raft addresses of every member, this one included;
	// empty is a single member.
	Peers []string
	// ElectionTimeout is raft's HeartbeatTimeout and ElectionTimeout;
	// default 1s; LeaderLeaseTimeout is half of it. A single member does not
	// wait for anyone and uses at most singleTimeout.
	ElectionTimeout time.Duration
	// SnapshotThreshold is the number of entries between snapshots; default
	// 8192.
	SnapshotThreshold uint64
	// SnapshotInterval is how often the log checks whether
	// SnapshotThreshold entries have accumulated (raft adds up to as much
	// again at random); default 30s.
	SnapshotInterval time.Duration
	// Logger receives raft's log; nil discards it.
	Logger *slog.Logger
	// TLS, when set, makes the members talk mutual TLS: each presents its
	// certificate and admits only a scheduler's from the same CA. Nil is
	// plaintext.
	TLS *tlsconf.Config
}

// Member is one member of the group, as the latest configuration names it.
type Member struct {
	ID, Addr string
	Leader   bool
}

var (
	// ErrNotLeader is returned by Propose and Barrier on a member that is
	// not the leader.
	ErrNotLeader = errors.New("replog: not the leader")
	// ErrLeadershipLost is returned, together with ErrNotLeader, when this
	// member lost the leadership while a proposal was in flight. NB: the
	// command may still be committed by the next leader.
	ErrLeadershipLost = errors.New("replog: leadership lost while the command was in flight; it may still commit")
	// ErrDirInUse is returned by Open when another Log, in this process or
	// another, holds Dir.
	ErrDirInUse = errors.New("replog: directory in use by another process")
	// ErrClosed is returned by calls on a closed Log.
	ErrClosed = errors.New("replog: closed")
)

const (
	defaultElectionTimeout   = time.Second
	defaultSnapshotThreshold = 8192
	defaultSnapshotInterval  = 30 * time.Second
	// singleTimeout caps a single member's election timeout: with no one
	// to hear from, the timeout only delays the member electing itself
	// after Open.
	singleTimeout = 50 * time.Millisecond
	// singleLeaderWait bounds how long Open waits for a single member to
	// elect itself and replay its log.
	singleLeaderWait = 30 * time.Second
	// retainSnapshots is how many snapshots Dir keeps.
	retainSnapshots = 2
)

// Log is one member of a replicated log. Its methods are safe for
// concurrent use.
type Log struct {
	raft    *raft.Raft
	trans   raft.Transport
	store   *raftboltdb.BoltStore
	snaps   *raft.FileSnapshotStore
	lock    *dirLock
	single  bool
	id      string
	changes chan bool

	// done is closed by Close; wg counts the goroutines that Close waits
	// for. closed, under mu, keeps wg from growing once Close waits.
	done      chan struct{}
	wg        sync.WaitGroup
	mu        sync.Mutex
	closed    bool
	closeOnce sync.Once
	closeErr  error
}

// Open opens, or creates, the member described by cfg and starts it. See
// the package documentation for what is replayed before it returns.
func Open(cfg Config, fsm FSM) (*Log, error) {
	cfg, single, err := withDefaults(cfg)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("replog: %w", err)
	}
	lock, err := lockDir(cfg.Dir)
	if err != nil {
		return nil, err
	}
	l := &Log{lock: lock, single: single, id: cfg.ID, changes: make(chan bool, 16), done: make(chan struct{})}
	if err := l.start(cfg, fsm); err != nil {
		return nil, errors.Join(err, l.Close())
	}
	if single {
		if err := l.awaitSingleLeader(); err != nil {
			return nil, errors.Join(err, l.Close())
		}
	}
	return l, nil
}

// withDefaults fills in cfg's defaults and checks it; it reports whether cfg
// is a single member.
func withDefaults(cfg Config) (Config, bool, error) {
	if cfg.Dir == "" {
		return cfg, false, errors.New("replog: no directory")
	}
	if cfg.ID == "" {
		cfg.ID = cmp.Or(cfg.Bind, "single")
	}
	cfg.ElectionTimeout = cmp.Or(cfg.ElectionTimeout, defaultElectionTimeout)
	cfg.SnapshotThreshold = cmp.Or(cfg.SnapshotThreshold, defaultSnapshotThreshold)
	cfg.SnapshotInterval = cmp.Or(cfg.SnapshotInterval, defaultSnapshotInterval)
	single := len(cfg.Peers) == 0 || (len(cfg.Peers) == 1 && cfg.Peers[0] == cfg.Bind)
	if single {
		return cfg, true, nil
	}
	switch {
	case cfg.Bind == "":
		return cfg, false, errors.New("replog: a member of a group needs a Raft address to bind")
	case !slices.Contains(cfg.Peers, cfg.Bind):
		return cfg, false, fmt.Errorf("replog: the peers %s do not include this member's address %s", strings.Join(cfg.Peers, ","), cfg.Bind)
	case cfg.ID != cfg.Bind:
		return cfg, false, fmt.Errorf("replog: in a group a member's id is its Raft address: id %q, address %q", cfg.ID, cfg.Bind)
	}
	return cfg, false, nil
}

// start opens the stores and the transport, bootstraps a new group and
// starts raft. On an error the caller closes what start opened.
func (l *Log) start(cfg Config, fsm FSM) error {
	logger := newHCLogger(cfg.Logger)
	var err error
	l.store, err = raftboltdb.New(raftboltdb.Options{Path: filepath.Join(cfg.Dir, "raft.db")})
	if err != nil {
		return fmt.Errorf("replog: opening the log: %w", err)
	}
	l.snaps, err = raft.NewFileSnapshotStoreWithLogger(cfg.Dir, retainSnapshots, logger.Named("snapshots"))
	if err != nil {
		return fmt.Errorf("replog: opening the snapshots: %w", err)
	}
	if l.trans, err = newTransport(cfg, logger); err != nil {
		return err
	}
	rc := raftConfig(cfg, l.single, logger)
	logs, err := raft.NewLogCache(512, l.store)
	if err != nil {
		return fmt.Errorf("replog: %w", err)
	}
	if err := l.bootstrap(cfg, rc, logs); err != nil {
		return err
	}
	l.raft, err = raft.NewRaft(rc, fsmAdapter{fsm}, logs, l.store, l.snaps, l.trans)
	if err != nil {
		return fmt.Errorf("replog: starting raft: %w", err)
	}
	l.wg.Add(1)
	go l.forwardLeaderChanges(l.raft.LeaderCh())
	if err := l.checkMembers(cfg); err != nil {
		return err
	}
	if l.single {
		l.electNow(rc)
	}
	return nil
}

// electNow makes a single member start its election at once rather than
// after a heartbeat timeout. NB: it lowers the heartbeat timeout, which
// raft's ReloadConfig answers by firing a follower's heartbeat timer now;
// should a later raft not do so, the member still elects itself within the
// (lowered) timeout. A single member sends no heartbeats, so the lower
// timeout costs nothing.
func (l *Log) electNow(rc *raft.Config) {
	reload := l.raft.ReloadableConfig()
	reload.HeartbeatTimeout = rc.LeaderLeaseTimeout
	reload.ElectionTimeout = rc.LeaderLeaseTimeout
	if err := l.raft.ReloadConfig(reload); err != nil {
		// It cannot fail (the lease timeout is valid as a heartbeat
		// timeout); without it the election comes a timeout later.
		rc.Logger.Warn("could not hasten the election", "error", err)
	}
}

// raftConfig builds raft's configuration from cfg.
func raftConfig(cfg Config, single bool, logger *hcLogger) *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(cfg.ID)
	timeout := cfg.ElectionTimeout
	if single {
		timeout = min(timeout, singleTimeout)
	}
	rc.HeartbeatTimeout = timeout
	rc.ElectionTimeout = timeout
	rc.LeaderLeaseTimeout = timeout / 2
	rc.SnapshotThreshold = cfg.SnapshotThreshold
	rc.SnapshotInterval = cfg.SnapshotInterval
	rc.Logger = logger
	// NB: raft reports metrics to go-metrics' global sink, which does
	// nothing unless a program sets one up; the legacy names would only
	// double them.
	rc.NoLegacyTelemetry = true
	return rc
}

// newTransport returns an in-memory transport for a member with no network
// and a TCP one otherwise.
func newTransport(cfg Config, logger *hcLogger) (raft.Transport, error) {
	if cfg.Bind == "" {
		_, t := raft.NewInmemTransport(raft.ServerAddress(cfg.ID))
		return t, nil
	}
	stream, err := listenTCP(cfg.Bind, cfg.TLS)
	if err != nil {
		return nil, fmt.Errorf("replog: listening on %s: %w", cfg.Bind, err)
	}
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:  stream,
		MaxPool: 3,
		Timeout: 10 * time.Second,
		Logger:  logger.Named("transport"),
	}), nil
}

// bootstrap writes the group's first configuration when Dir holds no state.
func (l *Log) bootstrap(cfg Config, rc *raft.Config, logs raft.LogStore) error {
	exists, err := raft.HasExistingState(logs, l.store, l.snaps)
	if err != nil {
		return fmt.Errorf("replog: reading the log: %w", err)
	}
	if exists {
		return nil
	}
	conf := raft.Configuration{Servers: l.servers(cfg)}
	if err := raft.BootstrapCluster(rc, logs, l.store, l.snaps, l.trans, conf); err != nil {
		return fmt.Errorf("replog: bootstrapping: %w", err)
	}
	return nil
}

// servers returns the members that cfg describes: this one alone, or one
// per peer.
func (l *Log) servers(cfg Config) []raft.Server {
	if l.single {
		return []raft.Server{{ID: raft.ServerID(cfg.ID), Address: l.trans.LocalAddr()}}
	}
	var ss []raft.Server
	for _, p := range cfg.Peers {
		ss = append(ss, raft.Server{ID: raft.ServerID(p), Address: raft.ServerAddress(p)})
	}
	return ss
}

// checkMembers fails when the log holds another group than cfg describes,
// e.g. a single scheduler's directory given to a member of a group: the
// members are fixed when a group is bootstrapped, and this package does not
// change them.
func (l *Log) checkMembers(cfg Config) error {
	f := l.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return fmt.Errorf("replog: reading the members: %w", err)
	}
	ids := func(ss []raft.Server) []string {
		var out []string
		for _, s := range ss {
			out = append(out, string(s.ID))
		}
		slices.Sort(out)
		return out
	}
	have, want := ids(f.Configuration().Servers), ids(l.servers(cfg))
	if !slices.Equal(have, want) {
		return fmt.Errorf("replog: %s holds the log of the members %s, not of %s; changing a group's members is not supported",
			cfg.Dir, strings.Join(have, ","), strings.Join(want, ","))
	}
	return nil
}

// awaitSingleLeader waits for a single member to elect itself and apply
// every entry of its log.
func (l *Log) awaitSingleLeader() error {
	ctx, cancel := context.WithTimeout(context.Background(), singleLeaderWait)
	defer cancel()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !l.IsLeader() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("replog: a single member did not become the leader in %s; its log names the members %v", singleLeaderWait, l.Members())
		case <-tick.C:
		}
	}
	return l.Barrier(ctx)
}

// Close shuts raft down, closes the stores and the transport and releases
// Dir. It is safe to call twice; the second call returns the first's error.
func (l *Log) Close() error {
	l.closeOnce.Do(func() { l.closeErr = l.close() })
	return l.closeErr
}

func (l *Log) close() error {
	var errs []error
	if l.raft != nil {
		errs = append(errs, l.raft.Shutdown().Error())
	}
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	close(l.done)
	l.wg.Wait()
	switch t := l.trans.(type) {
	case *raft.NetworkTransport:
		// NB: Close leaves the pooled connections to the peers open.
		t.CloseStreams()
		errs = append(errs, t.Close())
	case *raft.InmemTransport:
		errs = append(errs, t.Close())
	}
	if l.store != nil {
		errs = append(errs, l.store.Close())
	}
	errs = append(errs, l.lock.release())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("replog: closing: %w", err)
	}
	return nil
}
