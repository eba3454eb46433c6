package scheduler

import (
	"context"
	"slices"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
)

// taskManager is the connection to a registered task manager; its slots
// and heartbeats are the lifecycle's.
type taskManager struct {
	id     string
	conn   *grpc.ClientConn
	client floev1.TaskManagerClient
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
	id, _, acts := s.m.Register(s.now(), req.RpcAddr, req.Hostname, int(req.Slots), "", nil)
	s.tms[id] = &taskManager{id: id, conn: conn, client: floev1.NewTaskManagerClient(conn)}
	s.exec(acts)
	s.mu.Unlock()
	s.wake()
	return &floev1.RegisterResponse{
		TaskManagerId:       id,
		HeartbeatIntervalMs: s.cfg.HeartbeatInterval.Milliseconds(),
		HeartbeatTimeoutMs:  s.cfg.HeartbeatTimeout.Milliseconds(),
	}, nil
}

// Heartbeat implements floev1.SchedulerServer.
func (s *Server) Heartbeat(ctx context.Context, req *floev1.HeartbeatRequest) (*floev1.HeartbeatResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.m.Heartbeat(s.now(), req.TaskManagerId) {
		return &floev1.HeartbeatResponse{Known: false}, nil
	}
	for _, m := range req.Tasks {
		s.m.Metrics(fromTaskID(m.Task), m.RecordsIn, m.RecordsOut, m.BackPressure)
	}
	return &floev1.HeartbeatResponse{Known: true}, nil
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
	tms := s.m.TaskManagers()
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
