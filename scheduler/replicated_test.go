package scheduler

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/journal"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
)

// TestSnapshotPlansJobsAgain journals word count, rescaled, into an FSM
// with the server's planner, and restores a snapshot of it into another:
// the restored job has the same plan, at its new parallelism, and goes on
// the same way.
func TestSnapshotPlansJobsAgain(t *testing.T) {
	spec, err := os.ReadFile("../udfs/wordcount/job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := lifecycle.Config{HeartbeatInterval: time.Second, HeartbeatTimeout: 10 * time.Second}
	at := time.Unix(1_000_000, 0).UTC()
	apply := func(f *journal.FSM, c journal.Command) *journal.Result {
		t.Helper()
		b, err := journal.Encode(c)
		if err != nil {
			t.Fatal(err)
		}
		r := f.Apply(f.Applied()+1, b).(*journal.Result)
		if r.Err != nil {
			t.Fatalf("%T: %v", c, r.Err)
		}
		return r
	}
	f := journal.New(cfg, planSubmit)
	apply(f, journal.Register{At: at, Addr: "a", Slots: 4})
	apply(f, journal.Submit{At: at, Job: "j", Spec: spec, Params: map[string]string{"input": "/in", "output": "/out"},
		Parallelism: 2, CheckpointInterval: time.Second, CheckpointURL: "file:///ck", CheckpointStore: "file:///ck"})
	apply(f, journal.Tick{At: at.Add(100 * time.Millisecond)})
	j := f.Machine().Job("j")
	for si, stage := range j.Tasks {
		for sub := range stage {
			apply(f, journal.TaskStatus{At: at.Add(200 * time.Millisecond), TaskManager: "tm-1",
				Task: lifecycle.TaskID{Job: "j", Attempt: 1, Stage: si, Subtask: sub}, State: api.TaskRunning})
		}
	}
	apply(f, journal.Rescale{At: at.Add(300 * time.Millisecond), Job: "j", Parallelism: 3})
	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	g := journal.New(cfg, planSubmit)
	if err := g.Restore(snap); err != nil {
		t.Fatal(err)
	}
	a, b := f.Machine().Job("j"), g.Machine().Job("j")
	if parallelisms(a) != parallelisms(b) || a.State != b.State || a.Message != b.Message {
		t.Fatalf("restored job: %s %s %q, want %s %s %q", parallelisms(b), b.State, b.Message, parallelisms(a), a.State, a.Message)
	}
	want, _ := f.Machine().MarshalState()
	got, _ := g.Machine().MarshalState()
	if string(got) != string(want) {
		t.Fatalf("restored state:\n%s\nwant:\n%s", got, want)
	}
}

func parallelisms(j *lifecycle.Job) string {
	s := ""
	for _, st := range j.Plan.Stages {
		s += fmt.Sprintf("%s=%d ", st.Name, st.Parallelism)
	}
	return s
}
