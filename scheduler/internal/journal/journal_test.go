package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/coordinator"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
)

var cfg = lifecycle.Config{HeartbeatInterval: time.Second, HeartbeatTimeout: 10 * time.Second}

// testPlanner plans a job whose Params["stages"] lists its stages'
// parallelisms, e.g. "2,1": a source first, a sink last.
func testPlanner(c Submit) (lifecycle.Submission, error) {
	var pars []int
	for _, p := range strings.Split(c.Params["stages"], ",") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return lifecycle.Submission{}, fmt.Errorf("bad stages %q", c.Params["stages"])
		}
		pars = append(pars, n)
	}
	sub := lifecycle.Submission{Plan: testPlan(pars), Par: c.Parallelism,
		Strategy: jobspec.RestartStrategy{Type: "fixedDelay", Attempts: 3, Delay: time.Second},
		Replan: func(par int, ops map[string]int) (*plan.Plan, error) {
			ps := make([]int, len(pars))
			for i := range ps {
				ps[i] = par
			}
			return testPlan(ps), nil
		}}
	if c.CheckpointURL != "" {
		sub.Checkpoints = &lifecycle.Checkpointing{Retain: 1, Store: c.CheckpointStore,
			Coordinator: coordinator.Config{Interval: c.CheckpointInterval, Timeout: 5 * time.Second, MaxConcurrent: 1}}
	}
	if c.Restore != nil {
		md := *c.Restore
		md.Store = c.RestoreStore
		sub.Restore = &md
	}
	return sub, nil
}

func testPlan(pars []int) *plan.Plan {
	p := &plan.Plan{Job: &jobspec.Job{Name: "test", MaxParallelism: 128}}
	for i, n := range pars {
		st := plan.Stage{Index: i, Name: fmt.Sprintf("s%d", i), Parallelism: n}
		if i == 0 {
			st.Source = &jobspec.Source{}
		}
		if i == len(pars)-1 {
			st.Sink = &jobspec.Sink{}
		}
		p.Stages = append(p.Stages, st)
	}
	return p
}

// recorder applies commands to an FSM through their encoding and keeps
// the encoded log.
type recorder struct {
	t     *testing.T
	f     *FSM
	log   [][]byte
	epoch time.Time
}

func (r *recorder) apply(c Command) *Result {
	r.t.Helper()
	b, err := Encode(c)
	if err != nil {
		r.t.Fatal(err)
	}
	r.log = append(r.log, b)
	return r.f.Apply(uint64(len(r.log)), b).(*Result)
}

func (r *recorder) at(d time.Duration) time.Time { return r.epoch.Add(d) }

// script runs a job through checkpoints, a failover with adoption, a
// savepoint and a second job with a restore, and returns the recorder.
func script(t *testing.T) *recorder {
	r := &recorder{t: t, f: New(cfg, testPlanner), epoch: time.Unix(1_000_000, 0).UTC()}
	r.apply(Module{At: r.at(0), Digest: "abc", Wasm: []byte("\x00asm")})
	r.apply(Member{ID: "s1", REST: "h1:8081", RPC: "h1:6123"})
	r.apply(Member{ID: "s2", REST: "h2:8081"})
	r.apply(Member{ID: "s1", REST: "h1:9081", RPC: "h1:6123"}) // restarted on another port
	reg := r.apply(Register{At: r.at(0), Addr: "a1", Hostname: "h", Slots: 2})
	tm := reg.TaskManager
	sub := r.apply(Submit{At: r.at(0), Job: "j", Spec: []byte("name: test\n"), Params: map[string]string{"stages": "2,1"},
		CheckpointInterval: time.Second, Digests: map[string]string{"m": "abc"}, CheckpointURL: "file:///ck", CheckpointStore: "file:///ck"})
	if sub.Err != nil {
		t.Fatal(sub.Err)
	}
	r.apply(Module{At: r.at(0), Digest: "abc", Wasm: []byte("\x00asm"),
		Info: &ModuleInfo{Name: "m", Functions: map[string]string{"f": "map"}, Listed: true}})
	if res := r.apply(DropModule{At: r.at(0), Digest: "abc"}); !errors.Is(res.Err, api.ErrConflict) || !strings.Contains(res.Err.Error(), "job(s) j") {
		t.Fatalf("dropping the module of a running job: %v, want a conflict naming job j", res.Err)
	}
	r.apply(Module{At: r.at(0), Digest: "gone", Wasm: []byte("\x00asm"), Info: &ModuleInfo{Name: "g"}})
	if res := r.apply(DropModule{At: r.at(0), Digest: "gone"}); res.Err != nil {
		t.Fatalf("dropping an unused module: %v", res.Err)
	}
	if res := r.apply(DropModule{At: r.at(0), Digest: "gone"}); !errors.Is(res.Err, api.ErrNotFound) {
		t.Fatalf("dropping a dropped module: %v, want not found", res.Err)
	}
	r.apply(Tick{At: r.at(100 * time.Millisecond)})
	tasks := []lifecycle.TaskID{{Job: "j", Attempt: 1, Stage: 0, Subtask: 0}, {Job: "j", Attempt: 1, Stage: 0, Subtask: 1}, {Job: "j", Attempt: 1, Stage: 1, Subtask: 0}}
	for _, task := range tasks {
		r.apply(TaskStatus{At: r.at(200 * time.Millisecond), TaskManager: tm, Task: task, State: api.TaskRunning,
			States: []lifecycle.Declared{{Name: "counts", Queryable: true, Type: "int64", Kind: "value"}}})
	}
	for ck := int64(1); ck <= 2; ck++ {
		at := time.Duration(ck) * 1500 * time.Millisecond
		r.apply(Heartbeat{At: r.at(at), TaskManager: tm})
		r.apply(Tick{At: r.at(at)})
		var md *ckmeta.Metadata
		for _, task := range tasks {
			res := r.apply(Ack{At: r.at(at + 100*time.Millisecond), Task: task, ID: ck, State: ackState(task, ck)})
			for _, a := range res.Actions {
				if w, ok := a.(lifecycle.WriteMetadata); ok {
					md = w.Metadata
				}
			}
		}
		if md == nil {
			t.Fatalf("checkpoint %d did not complete", ck)
		}
		r.apply(MetadataWritten{At: r.at(at + 200*time.Millisecond), Job: "j", Attempt: 1, Metadata: md})
	}
	r.apply(Heartbeat{At: r.at(4 * time.Second), TaskManager: tm})
	r.apply(Tick{At: r.at(4500 * time.Millisecond)}) // checkpoint 3, abandoned by Lead
	r.apply(Lead{At: r.at(5 * time.Second)})
	var reported []lifecycle.Reported
	for _, task := range tasks {
		reported = append(reported, lifecycle.Reported{Task: task, State: api.TaskRunning})
	}
	if res := r.apply(Register{At: r.at(5100 * time.Millisecond), Addr: "a1", Hostname: "h", Slots: 2, Previous: tm, Tasks: reported}); len(res.Adopted) != 3 {
		t.Fatalf("adopted %v, want the 3 tasks", res.Adopted)
	}
	if res := r.apply(Savepoint{At: r.at(5200 * time.Millisecond), Job: "j"}); res.Err != nil || res.Savepoint != 4 {
		t.Fatalf("savepoint: %d, %v", res.Savepoint, res.Err)
	}
	r.apply(Decline{At: r.at(5300 * time.Millisecond), Task: tasks[0], ID: 4, Reason: "no"})
	r.apply(Unpin{At: r.at(5300 * time.Millisecond), Job: "j", ID: 4})
	if res := r.apply(Cancel{At: r.at(5400 * time.Millisecond), Job: "nope"}); !errors.Is(res.Err, api.ErrNotFound) {
		t.Fatalf("cancel of an unknown job: %v", res.Err)
	}
	r.apply(Rescale{At: r.at(5500 * time.Millisecond), Job: "j", Parallelism: 1})
	r.apply(LoseTaskManager{At: r.at(6 * time.Second), TaskManager: tm, Reason: "connection broke"})
	r.apply(Register{At: r.at(6 * time.Second), Addr: "a2", Hostname: "h2", Slots: 4})
	restore := &ckmeta.Metadata{Version: ckmeta.Version, JobID: "old", ID: 7, MaxParallelism: 128,
		Stages: []ckmeta.Stage{{Name: "s0", Parallelism: 1}}}
	r.apply(Submit{At: r.at(6 * time.Second), Job: "k", Spec: []byte("name: k\n"), Params: map[string]string{"stages": "1"},
		CheckpointURL: "file:///ck", CheckpointStore: "file:///ck", Restore: restore, RestoreStore: "file:///sp/savepoint-old-7"})
	r.apply(Tick{At: r.at(6100 * time.Millisecond)})
	r.apply(TaskStatus{At: r.at(6150 * time.Millisecond), TaskManager: "tm-2", Task: lifecycle.TaskID{Job: "k", Attempt: 1},
		State: api.TaskFailed, Message: "poison", Failure: &lifecycle.Failure{Operator: "op", Module: "m", Function: "f",
			Key: []byte("user-7"), KeySize: 6, HasRecord: true, Value: []byte("v"), ValueSize: 1}})
	r.apply(DeployUnreachable{At: r.at(6200 * time.Millisecond), Task: lifecycle.TaskID{Job: "k", Attempt: 1}, TaskManager: "tm-2", Err: "refused"})
	r.apply(StopWithSavepoint{At: r.at(7 * time.Second), Job: "j", Path: "file:///sp/x"})
	return r
}

func ackState(task lifecycle.TaskID, id int64) []byte {
	st := ckmeta.SubtaskState{Stage: task.Stage, Subtask: task.Subtask,
		Keyed: []ckmeta.File{{Path: fmt.Sprintf("ck%d-%d-%d.snap", id, task.Stage, task.Subtask)}}}
	if task.Stage == 0 {
		st.Source = [][]byte{}
	}
	b, err := ckmeta.Marshal(&st)
	if err != nil {
		panic(err)
	}
	return b
}

// dump is a canonical rendering of everything a Machine shows.
func dump(t *testing.T, f *FSM) string {
	t.Helper()
	type jobDump struct {
		Job         *lifecycle.Job
		Checkpoints []*api.CheckpointStatus
		Submit      *Submit
	}
	var out struct {
		TaskManagers []*lifecycle.TaskManager
		Jobs         []jobDump
		Modules      map[string][]byte
		ModuleInfo   map[string]ModuleInfo
		Members      map[string]Member
	}
	out.Modules, out.ModuleInfo, out.Members = f.Modules(), f.infos, f.Members()
	out.TaskManagers = f.Machine().TaskManagers()
	for _, j := range f.Machine().Jobs() {
		out.Jobs = append(out.Jobs, jobDump{Job: j, Checkpoints: j.Checkpoints(), Submit: f.Submitted(j.ID)})
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReplayRebuildsTheMachine(t *testing.T) {
	r := script(t)
	want := dump(t, r.f)
	if m, ok := r.f.Member("s1"); !ok || m.REST != "h1:9081" {
		t.Errorf("member s1: %+v, %v; want the address it was journaled with last", m, ok)
	}
	for _, frag := range []string{`"Message": "restart 1 of 3 in 1s after: connection broke"`, `attempt 1 adopted after a scheduler failover`, `abandoned: the scheduler's leader changed`} {
		if !strings.Contains(want, frag) {
			t.Errorf("the script's state lacks %q:\n%s", frag, want)
		}
	}
	f := New(cfg, testPlanner)
	for i, b := range r.log {
		f.Apply(uint64(i+1), b)
	}
	if got := dump(t, f); got != want {
		t.Errorf("replaying the log built another state:\n%s\nwant:\n%s", got, want)
	}
	if f.Applied() != uint64(len(r.log)) {
		t.Errorf("applied %d, want %d", f.Applied(), len(r.log))
	}
}

func TestSnapshotRestore(t *testing.T) {
	r := script(t)
	want := dump(t, r.f)
	snap, err := r.f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	f := New(cfg, testPlanner)
	f.Apply(1, mustEncode(t, Register{At: r.epoch, Addr: "x", Slots: 1})) // replaced by Restore
	if err := f.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, f); got != want {
		t.Errorf("the restored state differs:\n%s\nwant:\n%s", got, want)
	}
	if f.Applied() != r.f.Applied() {
		t.Errorf("applied %d after restore, want %d", f.Applied(), r.f.Applied())
	}
	// The restored FSM goes on like the original.
	next := mustEncode(t, Tick{At: r.at(20 * time.Second)})
	r.f.Apply(r.f.Applied()+1, next)
	f.Apply(f.Applied()+1, next)
	if got, want := dump(t, f), dump(t, r.f); got != want {
		t.Errorf("after one more command the states differ:\n%s\nwant:\n%s", got, want)
	}
	// A version 1 snapshot, every command applied, is still read.
	var cmds []json.RawMessage
	for _, b := range r.log {
		cmds = append(cmds, b)
	}
	v1, err := json.Marshal(snapshot{Version: 1, Applied: uint64(len(r.log)), Commands: cmds})
	if err != nil {
		t.Fatal(err)
	}
	old := New(cfg, testPlanner)
	if err := old.Restore(v1); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, old); got != want {
		t.Errorf("the state restored from a version 1 snapshot differs:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []string{`{`, `{"version":3,"applied":1}`, `{"version":1,"applied":1,"commands":[{"type":"nope","cmd":{}}]}`,
		`{"version":2,"applied":1,"machine":{"Version":1,"NextTM":0,"Jobs":[{"ID":"j"}]}}`} {
		if err := f.Restore([]byte(bad)); err == nil {
			t.Errorf("Restore(%s) succeeded", bad)
		}
		if len(f.Machine().Jobs()) != 0 {
			t.Errorf("a failed Restore(%s) left jobs behind", bad)
		}
	}
}

func mustEncode(t *testing.T, c Command) []byte {
	t.Helper()
	b, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, "malformed command: EOF"},
		{`[]`, "cannot unmarshal array"},
		{`{"type":"launch","cmd":{}}`, `unknown type "launch"`},
		{`{"type":"tick"}`, "tick without its fields"},
		{`{"type":"tick","cmd":{"At":"2026-01-01T00:00:00Z","Extra":1}}`, `tick: json: unknown field "Extra"`},
		{`{"type":"tick","cmd":{"At":"yesterday"}}`, "tick: parsing time"},
		{`{"type":"tick","cmd":{},"v":2}`, `unknown field "v"`},
		{`{"type":"tick","cmd":{}} {}`, "trailing bytes"},
	} {
		_, err := Decode([]byte(tc.in))
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Decode(%s) = %v, want ErrMalformed with %q", tc.in, err, tc.want)
		}
	}
	f := New(cfg, testPlanner)
	res := f.Apply(1, []byte(`{"type":"launch","cmd":{}}`)).(*Result)
	if !errors.Is(res.Err, ErrMalformed) || f.Applied() != 1 {
		t.Errorf("Apply of an unknown command: %v, applied %d", res.Err, f.Applied())
	}
	if _, err := Encode(nil); err == nil {
		t.Error("Encode(nil) succeeded")
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	for name, proto := range types {
		b := mustEncode(t, proto)
		c, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if fmt.Sprintf("%T", c) != fmt.Sprintf("%T", proto) {
			t.Errorf("%s decoded as %T", name, c)
		}
	}
}

func TestSubmitTwiceAndPlannerErrors(t *testing.T) {
	f := New(cfg, testPlanner)
	good := mustEncode(t, Submit{Job: "j", Params: map[string]string{"stages": "1"}})
	if res := f.Apply(1, good).(*Result); res.Err != nil {
		t.Fatal(res.Err)
	}
	if res := f.Apply(2, good).(*Result); res.Err == nil {
		t.Error("a second Submit of job j succeeded")
	}
	if res := f.Apply(3, mustEncode(t, Submit{Job: "k", Params: map[string]string{"stages": "x"}})).(*Result); res.Err == nil || f.Machine().Job("k") != nil {
		t.Errorf("a Submit the planner refuses: %v", res.Err)
	}
}

// TestFailuresAreJournaled checks that a task's failure, with where it
// arose, reaches the job's exceptions through the log: the replay and
// snapshot tests above compare them too.
func TestFailuresAreJournaled(t *testing.T) {
	r := script(t)
	x := r.f.Machine().Job("k").Exceptions
	if len(x.List) != 1 || x.List[0].Failure == nil || string(x.List[0].Failure.Key) != "user-7" || x.List[0].Message != "poison" {
		t.Fatalf("job k's exceptions %+v, want its task's failure with the key user-7", x)
	}
	if x := r.f.Machine().Job("j").Exceptions; len(x.List) != 1 || x.List[0].Task != nil || x.List[0].Message != "connection broke" {
		t.Errorf("job j's exceptions %+v, want its lost task manager", x)
	}
}

func TestModuleInfoAndUsers(t *testing.T) {
	r := script(t)
	info, ok := r.f.ModuleInfo("abc")
	if !ok || info.Name != "m" || !info.Listed || info.Functions["f"] != "map" {
		t.Errorf("ModuleInfo(abc) = %+v, %v; want the info journaled last", info, ok)
	}
	if _, ok := r.f.ModuleInfo("gone"); ok {
		t.Error("a dropped module is still known")
	}
	// Job j is stopping with a savepoint, not ended: it still runs abc.
	if got := r.f.ModuleUsers("abc"); len(got) != 1 || got[0] != "j" {
		t.Errorf("ModuleUsers(abc) = %v, want [j]", got)
	}
	r.apply(Cancel{At: r.at(8 * time.Second), Job: "j"})
	if got := r.f.ModuleUsers("abc"); len(got) != 0 {
		t.Errorf("ModuleUsers(abc) after the cancel = %v, want none", got)
	}
	if res := r.apply(DropModule{At: r.at(9 * time.Second), Digest: "abc"}); res.Err != nil {
		t.Fatalf("dropping the module of an ended job: %v", res.Err)
	}
}

func TestSubmitRefusesAModuleTheLogLacks(t *testing.T) {
	r := &recorder{t: t, f: New(cfg, testPlanner), epoch: time.Unix(1_000_000, 0).UTC()}
	res := r.apply(Submit{At: r.at(0), Job: "j", Spec: []byte("name: test\n"), Params: map[string]string{"stages": "1"},
		Digests: map[string]string{"m": "gone"}})
	if !errors.Is(res.Err, api.ErrBadRequest) || !strings.Contains(res.Err.Error(), `module "m"`) || r.f.Machine().Job("j") != nil {
		t.Errorf("Submit of a job whose module the log lacks: %v, want it refused naming the module", res.Err)
	}
}
