package scheduler

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floe-stream/floe/internal/tlsconf"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/journal"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
)

// taskManager is the connection to a registered task manager; its slots
// and heartbeats are the lifecycle's.
type taskManager struct {
	id     string
	conn   *grpc.ClientConn
	client floev1.TaskManagerClient
}

// rpcError maps an error of the server's to a gRPC status: a scheduler
// that does not lead answers UNAVAILABLE, so that task managers turn to
// another.
func rpcError(err error) error {
	if errors.Is(err, api.ErrUnavailable) {
		return status.Error(codes.Unavailable, err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}

// Register implements floev1.SchedulerServer. A task manager that lost its
// scheduler registers with its previous id and the tasks it runs; the
// answer lists the ones the lifecycle adopts.
func (s *Server) Register(ctx context.Context, req *floev1.RegisterRequest) (*floev1.RegisterResponse, error) {
	if req.Slots < 1 || req.RpcAddr == "" {
		return nil, status.Errorf(codes.InvalidArgument, "register: need an rpc address and at least one slot, got %q and %d", req.RpcAddr, req.Slots)
	}
	if !s.isLeading() {
		return nil, rpcError(errNotLeader)
	}
	// A task manager's certificate, or a scheduler's: `floe run` serves
	// its task managers with the scheduler's identity.
	conn, err := grpc.NewClient(req.RpcAddr, s.cfg.TLS.DialOption(tlsconf.TaskManager, tlsconf.Scheduler))
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "register: %v", err)
	}
	c := journal.Register{At: s.now(), Addr: req.RpcAddr, Hostname: req.Hostname, Slots: int(req.Slots), Previous: req.PreviousId}
	for _, u := range req.Tasks {
		c.Tasks = append(c.Tasks, lifecycle.Reported{Task: fromTaskID(u.Task), State: taskStates[u.State], Err: u.Error, Failure: failure(u.Failure)})
	}
	s.dial(req.RpcAddr, conn)
	r, err := s.propose(ctx, c)
	if err != nil {
		s.undial(req.RpcAddr, conn)
		return nil, rpcError(err)
	}
	s.mu.Lock()
	term := s.term
	s.mu.Unlock()
	s.wake()
	resp := &floev1.RegisterResponse{
		TaskManagerId:       r.TaskManager,
		HeartbeatIntervalMs: s.cfg.HeartbeatInterval.Milliseconds(),
		HeartbeatTimeoutMs:  s.cfg.HeartbeatTimeout.Milliseconds(),
		Term:                int64(term),
	}
	for _, t := range r.Adopted {
		resp.Adopted = append(resp.Adopted, taskID(t))
	}
	return resp, nil
}

// Heartbeat implements floev1.SchedulerServer. A task manager the
// lifecycle still waits for after a failover is kept alive but answered
// UNAVAILABLE, so that it registers again with its tasks.
func (s *Server) Heartbeat(ctx context.Context, req *floev1.HeartbeatRequest) (*floev1.HeartbeatResponse, error) {
	s.mu.Lock()
	unknown := s.ready && s.machine().TaskManager(req.TaskManagerId) == nil
	s.mu.Unlock()
	if unknown {
		return &floev1.HeartbeatResponse{Known: false}, nil // nothing to journal
	}
	r, err := s.propose(ctx, journal.Heartbeat{At: s.now(), TaskManager: req.TaskManagerId})
	if err != nil {
		return nil, rpcError(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.machine()
	if !r.Known {
		if tm := m.TaskManager(req.TaskManagerId); tm != nil && tm.Rejoining() {
			return nil, status.Errorf(codes.Unavailable, "task manager %s: this scheduler has become the leader; register again with your tasks", req.TaskManagerId)
		}
		return &floev1.HeartbeatResponse{Known: false}, nil
	}
	at := s.now()
	for _, mt := range req.Tasks {
		s.taskMetrics(fromTaskID(mt.Task), sampleOf(mt, at))
	}
	return &floev1.HeartbeatResponse{Known: true}, nil
}

// FetchArtifact implements floev1.SchedulerServer. Modules are stored in
// DataDir/artifacts by digest, so a restarted scheduler serves the modules
// of the jobs it journaled.
func (s *Server) FetchArtifact(req *floev1.FetchArtifactRequest, stream grpc.ServerStreamingServer[floev1.ArtifactChunk]) error {
	if !s.isLeading() {
		return rpcError(errNotLeader)
	}
	b, err := s.artifacts.Get(req.Sha256)
	if err != nil {
		return status.Error(codes.NotFound, err.Error())
	}
	const chunk = 1 << 20
	for len(b) > 0 {
		n := min(chunk, len(b))
		if err := stream.Send(&floev1.ArtifactChunk{Data: b[:n]}); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// TaskManagers implements api.Service.
func (s *Server) TaskManagers(ctx context.Context) ([]api.TaskManagerStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tms := s.machine().TaskManagers()
	out := make([]api.TaskManagerStatus, 0, len(tms))
	for _, tm := range tms {
		out = append(out, api.TaskManagerStatus{
			ID: tm.ID, Addr: tm.Addr, Hostname: tm.Hostname, Slots: tm.Slots,
			FreeSlots: tm.Slots - tm.Used, LastHeartbeat: tm.LastHeartbeat,
		})
	}
	sortByID(out)
	return out, nil
}

func sortByID(tms []api.TaskManagerStatus) {
	slices.SortFunc(tms, func(a, b api.TaskManagerStatus) int { return strings.Compare(a.ID, b.ID) })
}

// sampleOf turns a task's reported metrics, received at at, into the
// lifecycle's sample.
func sampleOf(mt *floev1.TaskMetrics, at time.Time) lifecycle.Sample {
	s := lifecycle.Sample{At: at, RecordsIn: mt.RecordsIn, RecordsOut: mt.RecordsOut, BackPressure: mt.BackPressure, Idle: mt.Idle,
		Checkpointing: mt.Checkpointing, Backlog: -1, Splits: -1, PacedRate: mt.PacedRate,
		InputWatermark: lifecycle.NoWatermark, OutputWatermark: lifecycle.NoWatermark, BytesRead: -1, BytesTotal: mt.BytesTotal}
	if mt.Backlog != nil {
		s.Backlog = *mt.Backlog
	}
	if mt.Splits != nil {
		s.Splits = int(*mt.Splits)
	}
	if mt.InputWatermark != nil {
		s.InputWatermark = *mt.InputWatermark
	}
	if mt.OutputWatermark != nil {
		s.OutputWatermark = *mt.OutputWatermark
	}
	if mt.BytesRead != nil {
		s.BytesRead = *mt.BytesRead
	}
	for _, o := range mt.OperatorStates {
		s.OperatorStates = append(s.OperatorStates, lifecycle.OperatorState{Operator: o.Operator, Keys: o.Keys, Bytes: o.Bytes})
	}
	return s
}
