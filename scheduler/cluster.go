package scheduler

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
)

// taskManager is a registered task manager.
type taskManager struct {
	id            string
	addr          string
	hostname      string
	slots         int
	used          int
	lastHeartbeat time.Time
	conn          *grpc.ClientConn
	client        floev1.TaskManagerClient
}

// Register implements floev1.SchedulerServer.
func (s *Server) Register(ctx context.Context, req *floev1.RegisterRequest) (*floev1.RegisterResponse, error) {
	if req.Slots < 1 || req.RpcAddr == "" {
		return nil, status.Errorf(codes.InvalidArgument, "register: need an rpc address and at least one slot, got %q and %d", req.RpcAddr, req.Slots)
	}
	conn, err := grpc.NewClient(req.RpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "register: %v", err)
	}
	s.mu.Lock()
	s.nextID++
	tm := &taskManager{
		id: fmt.Sprintf("tm-%d", s.nextID), addr: req.RpcAddr, hostname: req.Hostname, slots: int(req.Slots),
		lastHeartbeat: s.now(), conn: conn, client: floev1.NewTaskManagerClient(conn),
	}
	s.tms[tm.id] = tm
	s.mu.Unlock()
	s.log.Info("task manager registered", "id", tm.id, "addr", tm.addr, "slots", tm.slots)
	s.wake()
	return &floev1.RegisterResponse{
		TaskManagerId:       tm.id,
		HeartbeatIntervalMs: s.cfg.HeartbeatInterval.Milliseconds(),
		HeartbeatTimeoutMs:  s.cfg.HeartbeatTimeout.Milliseconds(),
	}, nil
}

// Heartbeat implements floev1.SchedulerServer.
func (s *Server) Heartbeat(ctx context.Context, req *floev1.HeartbeatRequest) (*floev1.HeartbeatResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tm, ok := s.tms[req.TaskManagerId]
	if !ok {
		return &floev1.HeartbeatResponse{Known: false}, nil
	}
	tm.lastHeartbeat = s.now()
	for _, m := range req.Tasks {
		if t := s.task(m.Task); t != nil {
			t.recordsIn, t.recordsOut, t.backPressure = m.RecordsIn, m.RecordsOut, m.BackPressure
		}
	}
	return &floev1.HeartbeatResponse{Known: true}, nil
}

// loseTaskManager forgets a task manager and fails the jobs that ran on
// it. The caller holds s.mu.
func (s *Server) loseTaskManager(tm *taskManager, reason string) {
	s.log.Warn("task manager lost", "id", tm.id, "addr", tm.addr, "reason", reason)
	delete(s.tms, tm.id)
	conn := tm.conn
	s.spawn(func() { conn.Close() })
	for _, id := range s.order {
		j := s.jobs[id]
		if (j.state == api.JobDeploying || j.state == api.JobRunning) && j.uses(tm.id) {
			s.failAttempt(j, reason)
		}
	}
}

// FetchArtifact implements floev1.SchedulerServer.
func (s *Server) FetchArtifact(req *floev1.FetchArtifactRequest, stream grpc.ServerStreamingServer[floev1.ArtifactChunk]) error {
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
	out := make([]api.TaskManagerStatus, 0, len(s.tms))
	for _, tm := range s.tms {
		out = append(out, api.TaskManagerStatus{
			ID: tm.id, Addr: tm.addr, Hostname: tm.hostname, Slots: tm.slots,
			FreeSlots: tm.slots - tm.used, LastHeartbeat: tm.lastHeartbeat,
		})
	}
	sortByID(out)
	return out, nil
}

func sortByID(tms []api.TaskManagerStatus) {
	slices.SortFunc(tms, func(a, b api.TaskManagerStatus) int { return strings.Compare(a.ID, b.ID) })
}
