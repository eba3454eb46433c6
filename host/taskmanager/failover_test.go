package taskmanager

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

const (
	stateRunning  = floev1.TaskState_TASK_STATE_RUNNING
	stateFinished = floev1.TaskState_TASK_STATE_FINISHED
	stateCanceled = floev1.TaskState_TASK_STATE_CANCELED
)

// A task manager registers with the first scheduler that accepts: past one
// that is down and one that does not lead.
func TestRegistersWithTheSchedulerThatLeads(t *testing.T) {
	follower := newFakeScheduler(t, "follower", 1, false)
	leader := newFakeScheduler(t, "leader", 1, true)
	tm := startTM(t, time.Minute, deadAddr(t), follower.addr(), leader.addr())

	waitFor(t, "registration with the leader", func() bool { return tm.leaderAddr() == leader.addr() })
	if n := len(leader.registered()); n != 1 {
		t.Errorf("registered %d times with the leader, want once", n)
	}
	if reg := leader.registered()[0]; reg.PreviousId != "" || len(reg.Tasks) != 0 {
		t.Errorf("first registration has previous id %q and %d tasks, want none", reg.PreviousId, len(reg.Tasks))
	}
	if get(follower, func(f *fakeScheduler) int { return f.refused }) == 0 {
		t.Error("the follower was never asked")
	}
}

// failover starts a task manager on scheduler a with a running task, then
// kills a and lets b lead, adopting or not; it returns once the task
// manager has re-registered with b.
func failover(t *testing.T, adopt bool) (tm *TaskManager, j *job, a, b *fakeScheduler) {
	a = newFakeScheduler(t, "a", 1, true)
	b = newFakeScheduler(t, "b", 2, false)
	tm = startTM(t, time.Minute, a.addr(), b.addr())
	waitFor(t, "registration with a", func() bool { return tm.leaderAddr() == a.addr() })

	j = newJob(t, "follow", true, "one", "two")
	j.deploy(t, tm, 1)
	waitFor(t, "the task's RUNNING at a", func() bool { return a.hasUpdate(j.id, stateRunning) })
	task := tm.runningTask(j.id)

	b.set(func(f *fakeScheduler) { f.leading, f.adopt = true, adopt })
	a.stop()
	waitFor(t, "re-registration with b", func() bool { return tm.leaderAddr() == b.addr() })
	reg := b.registered()[0]
	if reg.PreviousId != "a-1" {
		t.Errorf("re-registered with previous id %q, want a-1", reg.PreviousId)
	}
	if got := reported(reg, j.id); got != stateRunning {
		t.Errorf("re-registration reported the task %v, want RUNNING (tasks %v)", got, reg.Tasks)
	}
	if got := tm.runningTask(j.id); adopt && got != task {
		t.Errorf("the task is %p after re-registration, want the same %p still running", got, task)
	}
	return tm, j, a, b
}

// A running task survives its scheduler's death: the new leader adopts it,
// it goes on reading its input, and its later status reaches the new
// leader.
func TestAdoptedTaskKeepsRunning(t *testing.T) {
	tm, j, _, b := failover(t, true)

	// Modules come from the new leader: only b has this one.
	only := []byte("a module only b has")
	b.set(func(f *fakeScheduler) { f.artifacts[digest(only)] = only })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := tm.modules.path(ctx, digest(only)); err != nil {
		t.Errorf("fetching a module from the new leader: %v", err)
	}

	j.appendLine(t, "three")
	waitFor(t, "the third record in b's heartbeats", func() bool { return b.recordsIn(j.id) >= 3 })

	if _, err := client(t, tm).CancelTasks(ctx, &floev1.CancelTasksRequest{JobId: j.id.JobId, Attempt: j.id.Attempt, Term: 2}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the task's CANCELED at b", func() bool { return b.hasUpdate(j.id, stateCanceled) })
}

// A task the new leader does not adopt is canceled, and the new leader
// hears so.
func TestTaskNotAdoptedIsCanceled(t *testing.T) {
	tm, j, _, b := failover(t, false)
	waitFor(t, "the task's end", func() bool { return tm.runningTask(j.id) == nil })
	waitFor(t, "the task's CANCELED at b", func() bool { return b.hasUpdate(j.id, stateCanceled) })
}

// A task that finishes while no scheduler leads is reported FINISHED when
// the task manager re-registers.
func TestEndWithoutSchedulerIsReportedAtRegistration(t *testing.T) {
	a := newFakeScheduler(t, "a", 1, true)
	b := newFakeScheduler(t, "b", 2, false)
	tm := startTM(t, time.Minute, a.addr(), b.addr())
	waitFor(t, "registration with a", func() bool { return tm.leaderAddr() == a.addr() })
	seedModule(t, tm)

	a.stop()
	waitFor(t, "the search for a leader", func() bool { return get(b, func(f *fakeScheduler) int { return f.refused }) > 0 })
	j := newJob(t, "bounded", false, "one", "two")
	j.deploy(t, tm, 1)
	waitFor(t, "the task's unreported end", func() bool { return tm.unreportedEnd(j.id) != nil })
	if u := tm.unreportedEnd(j.id); u.State != stateFinished {
		t.Fatalf("the task ended %v (%s), want FINISHED", u.State, u.Error)
	}

	b.set(func(f *fakeScheduler) { f.leading = true })
	waitFor(t, "re-registration with b", func() bool { return len(b.registered()) == 1 })
	reg := b.registered()[0]
	if reg.PreviousId != "a-1" || reported(reg, j.id) != stateFinished {
		t.Errorf("re-registered with previous id %q and the task %v, want a-1 and FINISHED", reg.PreviousId, reported(reg, j.id))
	}
	waitFor(t, "the end to be forgotten", func() bool { return tm.unreportedEnd(j.id) == nil })
}

// An end the leader could not take is delivered after a later heartbeat.
func TestEndIsRetriedAfterHeartbeats(t *testing.T) {
	a := newFakeScheduler(t, "a", 1, true)
	tm := startTM(t, time.Minute, a.addr())
	waitFor(t, "registration with a", func() bool { return tm.leaderAddr() == a.addr() })
	a.set(func(f *fakeScheduler) { f.drop = true })
	j := newJob(t, "bounded", false, "one", "two")
	j.deploy(t, tm, 1)
	waitFor(t, "the task's unreported end", func() bool { return tm.unreportedEnd(j.id) != nil })

	a.set(func(f *fakeScheduler) { f.drop = false })
	waitFor(t, "the task's FINISHED at a", func() bool { return a.hasUpdate(j.id, stateFinished) })
	waitFor(t, "the end to be forgotten", func() bool { return tm.unreportedEnd(j.id) == nil })
}

// When no scheduler takes the tasks within the grace period they are
// canceled, and the scheduler that finally accepts hears so.
func TestGraceExpiryCancelsTasks(t *testing.T) {
	a := newFakeScheduler(t, "a", 1, true)
	b := newFakeScheduler(t, "b", 2, false)
	tm := startTM(t, 100*time.Millisecond, a.addr(), b.addr())
	waitFor(t, "registration with a", func() bool { return tm.leaderAddr() == a.addr() })
	j := newJob(t, "follow", true, "one")
	j.deploy(t, tm, 1)
	waitFor(t, "the task's RUNNING at a", func() bool { return a.hasUpdate(j.id, stateRunning) })

	a.stop()
	waitFor(t, "the task's end", func() bool { return tm.runningTask(j.id) == nil })
	if u := tm.unreportedEnd(j.id); u == nil || u.State != stateCanceled {
		t.Fatalf("unreported end %v, want CANCELED", u)
	}
	b.set(func(f *fakeScheduler) { f.leading = true })
	waitFor(t, "re-registration with b", func() bool { return len(b.registered()) == 1 })
	// NB: a registration whose snapshot was taken before the grace ran
	// out, and that b answered only once it led, reports the task RUNNING;
	// the kept end then reaches b as a status update. Either way b must
	// learn that the task was canceled, and never that it runs on.
	switch got := reported(b.registered()[0], j.id); got {
	case stateCanceled:
	case stateRunning:
		waitFor(t, "the CANCELED end delivered to b", func() bool { return b.hasUpdate(j.id, stateCanceled) })
	default:
		t.Errorf("re-registration reported the task %v, want CANCELED (or RUNNING then its end)", got)
	}
}

// A scheduler that declared the task manager dead makes it cancel its tasks
// and register afresh.
func TestForgottenTaskManagerRegistersAfresh(t *testing.T) {
	a := newFakeScheduler(t, "a", 1, true)
	tm := startTM(t, time.Minute, a.addr())
	waitFor(t, "registration with a", func() bool { return tm.leaderAddr() == a.addr() })
	j := newJob(t, "follow", true, "one")
	j.deploy(t, tm, 1)
	waitFor(t, "the task's RUNNING at a", func() bool { return a.hasUpdate(j.id, stateRunning) })

	a.set(func(f *fakeScheduler) { f.forget = true })
	waitFor(t, "the second registration", func() bool { return len(a.registered()) == 2 })
	a.set(func(f *fakeScheduler) { f.forget = false })
	if reg := a.registered()[1]; reg.PreviousId != "" || len(reg.Tasks) != 0 {
		t.Errorf("registered again with previous id %q and %d tasks, want afresh", reg.PreviousId, len(reg.Tasks))
	}
	waitFor(t, "the task's end", func() bool { return tm.runningTask(j.id) == nil })
}

// Every call a leader makes is refused with an older term than the highest
// seen; a newer term raises the bar, and a deposed leader cannot take the
// task manager back by registering it.
func TestFencing(t *testing.T) {
	// a leads with term 5 until it is deposed; b, of term 6, does not know
	// yet that a leader of term 7 exists; c leads last, with term 8.
	a := newFakeScheduler(t, "a", 5, true)
	b := newFakeScheduler(t, "b", 6, false)
	c8 := newFakeScheduler(t, "c", 8, false)
	tm := startTM(t, time.Minute, a.addr(), b.addr(), c8.addr())
	waitFor(t, "registration with a", func() bool { return tm.leaderAddr() == a.addr() })
	c := client(t, tm)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	calls := map[string]func(term int64) error{
		"DeployTask": func(term int64) error {
			_, err := c.DeployTask(ctx, &floev1.DeployTaskRequest{Task: &floev1.TaskID{JobId: "none"}, Term: term})
			return err
		},
		"CancelTasks": func(term int64) error {
			_, err := c.CancelTasks(ctx, &floev1.CancelTasksRequest{JobId: "none", Term: term})
			return err
		},
		"TriggerCheckpoint": func(term int64) error {
			_, err := c.TriggerCheckpoint(ctx, &floev1.TriggerCheckpointRequest{JobId: "none", CheckpointId: 1, Term: term})
			return err
		},
		"NotifyCheckpointComplete": func(term int64) error {
			_, err := c.NotifyCheckpointComplete(ctx, &floev1.NotifyCheckpointRequest{JobId: "none", CheckpointId: 1, Term: term})
			return err
		},
	}
	fenced := func(name string, term, highest int64, err error) {
		t.Helper()
		want := fmt.Sprintf("fenced: term %d is older than %d", term, highest)
		if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), want) {
			t.Errorf("%s with term %d: %v, want FAILED_PRECONDITION %q", name, term, err, want)
		}
	}
	notFenced := func(name string, term int64, err error) {
		t.Helper()
		if err != nil && strings.Contains(err.Error(), "fenced") {
			t.Errorf("%s with term %d was fenced: %v", name, term, err)
		}
	}
	for name, call := range calls {
		fenced(name, 4, 5, call(4))
		fenced(name, 0, 5, call(0))
		notFenced(name, 5, call(5))
	}
	notFenced("CancelTasks", 7, calls["CancelTasks"](7))
	for name, call := range calls {
		fenced(name, 5, 7, call(5))
		notFenced(name, 7, call(7))
	}

	b.set(func(f *fakeScheduler) { f.leading = true })
	a.stop()
	// The task manager tries b again only once it has refused it.
	waitFor(t, "a second attempt with b", func() bool { return len(b.registered()) > 1 })
	if got := tm.leaderAddr(); got == b.addr() {
		t.Fatal("the task manager took b, of an older term, as its leader")
	}
	c8.set(func(f *fakeScheduler) { f.leading = true })
	waitFor(t, "registration with c", func() bool { return tm.leaderAddr() == c8.addr() })
	fenced("CancelTasks", 7, 8, calls["CancelTasks"](7))
}

// A task manager that has seen no term accepts term 0, from a scheduler
// without terms.
func TestTermZeroWithoutTerms(t *testing.T) {
	a := newFakeScheduler(t, "a", 0, true)
	tm := startTM(t, time.Minute, a.addr())
	waitFor(t, "registration with a", func() bool { return tm.leaderAddr() == a.addr() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := client(t, tm).CancelTasks(ctx, &floev1.CancelTasksRequest{JobId: "none", Term: 0}); err != nil {
		t.Errorf("CancelTasks with term 0: %v", err)
	}
}
