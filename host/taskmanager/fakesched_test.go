package taskmanager

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/floe-stream/floe/host/udf"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// fakeScheduler is an in-process Scheduler service on loopback that
// records what task managers tell it. One that does not lead answers
// UNAVAILABLE, as a follower does.
type fakeScheduler struct {
	floev1.UnimplementedSchedulerServer
	name      string
	term      int64
	artifacts map[string][]byte // by digest

	lis  net.Listener
	srv  *grpc.Server
	done chan struct{}
	once sync.Once

	mu        sync.Mutex
	leading   bool
	adopt     bool // adopt every reported task that still runs
	forget    bool // answer heartbeats with known=false
	drop      bool // answer task status updates UNAVAILABLE
	refused   int  // Register calls refused while not leading
	registers []*floev1.RegisterRequest
	updates   []*floev1.TaskStatusUpdate
	beats     []*floev1.HeartbeatRequest
}

// newFakeScheduler starts a fake scheduler of the given term; it serves
// the testops module.
func newFakeScheduler(t *testing.T, name string, term int64, leading bool) *fakeScheduler {
	t.Helper()
	wasm, err := os.ReadFile(testops)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeScheduler{
		name: name, term: term, leading: leading, artifacts: map[string][]byte{digest(wasm): wasm},
		lis: lis, srv: grpc.NewServer(), done: make(chan struct{}),
	}
	floev1.RegisterSchedulerServer(f.srv, f)
	go func() {
		defer close(f.done)
		f.srv.Serve(lis)
	}()
	t.Cleanup(f.stop)
	return f
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// addr is the fake's RPC address.
func (f *fakeScheduler) addr() string { return f.lis.Addr().String() }

// stop kills the fake: connections drop and its port refuses.
func (f *fakeScheduler) stop() {
	f.once.Do(func() {
		f.srv.Stop()
		<-f.done
	})
}

// set changes the fake's behaviour under its lock.
func (f *fakeScheduler) set(fn func(f *fakeScheduler)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// get reads the fake's records under its lock.
func get[T any](f *fakeScheduler, fn func(f *fakeScheduler) T) T {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fn(f)
}

func (f *fakeScheduler) notLeader() error {
	return status.Errorf(codes.Unavailable, "%s is not the leader", f.name)
}

func (f *fakeScheduler) Register(ctx context.Context, req *floev1.RegisterRequest) (*floev1.RegisterResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.leading {
		f.refused++
		return nil, f.notLeader()
	}
	f.registers = append(f.registers, req)
	resp := &floev1.RegisterResponse{
		TaskManagerId:       fmt.Sprintf("%s-%d", f.name, len(f.registers)),
		HeartbeatIntervalMs: 20, HeartbeatTimeoutMs: 500, Term: f.term,
	}
	for _, u := range req.Tasks {
		if f.adopt && (u.State == floev1.TaskState_TASK_STATE_RUNNING || u.State == floev1.TaskState_TASK_STATE_ENDING) {
			resp.Adopted = append(resp.Adopted, u.Task)
		}
	}
	return resp, nil
}

func (f *fakeScheduler) Heartbeat(ctx context.Context, req *floev1.HeartbeatRequest) (*floev1.HeartbeatResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.leading {
		return nil, f.notLeader()
	}
	f.beats = append(f.beats, req)
	return &floev1.HeartbeatResponse{Known: !f.forget}, nil
}

func (f *fakeScheduler) UpdateTaskStatus(ctx context.Context, u *floev1.TaskStatusUpdate) (*floev1.UpdateTaskStatusResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.leading {
		return nil, f.notLeader()
	}
	if f.drop {
		return nil, status.Error(codes.Unavailable, "dropped")
	}
	f.updates = append(f.updates, u)
	return &floev1.UpdateTaskStatusResponse{}, nil
}

func (f *fakeScheduler) FetchArtifact(req *floev1.FetchArtifactRequest, stream grpc.ServerStreamingServer[floev1.ArtifactChunk]) error {
	f.mu.Lock()
	leading, b := f.leading, f.artifacts[req.Sha256]
	f.mu.Unlock()
	if !leading {
		return f.notLeader()
	}
	if b == nil {
		return status.Errorf(codes.NotFound, "no artifact %s", req.Sha256)
	}
	return stream.Send(&floev1.ArtifactChunk{Data: b})
}

// registered returns the registrations the fake accepted.
func (f *fakeScheduler) registered() []*floev1.RegisterRequest {
	return get(f, func(f *fakeScheduler) []*floev1.RegisterRequest {
		return append([]*floev1.RegisterRequest(nil), f.registers...)
	})
}

// hasUpdate reports whether the fake was told that task id reached state.
func (f *fakeScheduler) hasUpdate(id *floev1.TaskID, state floev1.TaskState) bool {
	return get(f, func(f *fakeScheduler) bool {
		for _, u := range f.updates {
			if keyOf(u.Task) == keyOf(id) && u.State == state {
				return true
			}
		}
		return false
	})
}

// recordsIn is the task's input count in the fake's last heartbeat that
// carried it.
func (f *fakeScheduler) recordsIn(id *floev1.TaskID) int64 {
	return get(f, func(f *fakeScheduler) int64 {
		for i := len(f.beats) - 1; i >= 0; i-- {
			for _, m := range f.beats[i].Tasks {
				if keyOf(m.Task) == keyOf(id) {
					return m.RecordsIn
				}
			}
		}
		return -1
	})
}

// reported returns the state task id had in registration reg, or
// UNSPECIFIED when reg did not report it.
func reported(reg *floev1.RegisterRequest, id *floev1.TaskID) floev1.TaskState {
	for _, u := range reg.Tasks {
		if keyOf(u.Task) == keyOf(id) {
			return u.State
		}
	}
	return floev1.TaskState_TASK_STATE_UNSPECIFIED
}

// startTM runs a task manager until the test ends.
func startTM(t *testing.T, grace time.Duration, scheds ...string) *TaskManager {
	t.Helper()
	return startTMWith(t, func(*Config) {}, grace, scheds...)
}

// startTMWith runs a task manager, its configuration changed by with,
// until the test ends.
func startTMWith(t *testing.T, with func(*Config), grace time.Duration, scheds ...string) *TaskManager {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	engine, err := udf.NewEngine(context.Background(), udf.Config{CacheDir: testCache})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Schedulers: scheds, SchedulerGrace: grace, RPCAddr: "127.0.0.1:0", Slots: 2,
		DataDir: t.TempDir(), Engine: engine, TaskNice: -1, Logger: log,
	}
	with(&cfg)
	tm, err := New(cfg)
	if err != nil {
		engine.Close(context.Background())
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tm.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("task manager: %v", err)
		}
		engine.Close(context.Background())
	})
	return tm
}

// leaderAddr is the address of the scheduler tm is registered with, or "".
func (tm *TaskManager) leaderAddr() string {
	if s := tm.lead.Load(); s != nil {
		return s.addr
	}
	return ""
}

// runningTask returns tm's task id while it runs, or nil.
func (tm *TaskManager) runningTask(id *floev1.TaskID) *running {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.tasks[keyOf(id)]
}

// unreportedEnd returns the end of task id tm keeps unreported, or nil.
func (tm *TaskManager) unreportedEnd(id *floev1.TaskID) *floev1.TaskStatusUpdate {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.ends[keyOf(id)]
}

// client is a TaskManager client to tm, as a scheduler calls it.
func client(t *testing.T, tm *TaskManager) floev1.TaskManagerClient {
	t.Helper()
	conn, err := grpc.NewClient(tm.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return floev1.NewTaskManagerClient(conn)
}

// upperJob reads a file, upper-cases each line with the testops module and
// writes the lines to a directory; following the file, it runs until
// canceled.
const upperJob = `
name: upper
parallelism: 1
modules:
  testops: testops.wasm
source:
  type: file
  uid: lines
  path: ${input}
  follow: ${follow}
operators:
  - type: map
    uid: upper
    module: testops
    function: upper
sink:
  type: file
  uid: out
  path: ${output}
`

// job is a deployment of upperJob over a fresh input of lines.
type job struct {
	id    *floev1.TaskID
	input string
	req   *floev1.DeployTaskRequest
}

func newJob(t *testing.T, name string, follow bool, lines ...string) *job {
	t.Helper()
	dir := t.TempDir()
	input := filepath.Join(dir, "input.txt")
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if err := os.WriteFile(input, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	wasm, err := os.ReadFile(testops)
	if err != nil {
		t.Fatal(err)
	}
	id := &floev1.TaskID{JobId: name, Attempt: 1}
	return &job{id: id, input: input, req: &floev1.DeployTaskRequest{
		Task: id, JobSpec: []byte(upperJob), ModuleDigests: map[string]string{"testops": digest(wasm)},
		Params: map[string]string{"input": input, "output": filepath.Join(dir, "out"), "follow": fmt.Sprint(follow)},
	}}
}

// deploy deploys j to tm as a leader of term does.
func (j *job) deploy(t *testing.T, tm *TaskManager, term int64) {
	t.Helper()
	req := proto.CloneOf(j.req)
	req.Term = term
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := client(t, tm).DeployTask(ctx, req); err != nil {
		t.Fatalf("deploying %s: %v", j.id.JobId, err)
	}
}

// appendLine appends a line to j's followed input.
func (j *job) appendLine(t *testing.T, line string) {
	t.Helper()
	f, err := os.OpenFile(j.input, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

// seedModule puts the testops module where tm keeps fetched modules, so
// that a task deployed while tm has no scheduler needs no fetch.
func seedModule(t *testing.T, tm *TaskManager) {
	t.Helper()
	wasm, err := os.ReadFile(testops)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tm.cfg.DataDir, "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, digest(wasm)+".wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds, failing the test after a generous
// two minutes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	// NB: generous: under -race on a loaded 2-core machine, a task's first
	// module compile alone has taken most of two minutes.
	deadline := time.Now().Add(5 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// deadAddr is a loopback address where nothing listens.
func deadAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}
