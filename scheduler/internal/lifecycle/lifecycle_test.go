package lifecycle

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/autoscale"
	"github.com/floe-stream/floe/scheduler/internal/coordinator"
)

// TestLifecycle runs the scenarios in testdata/. Every command but state
// takes at=D, the time of its event as an offset from an epoch, and most
// take job=ID (default j). Commands:
//
//	config heartbeat-interval=D heartbeat-timeout=D [max-history=N]
//	       [partial-rescale]
//	register slots=N [previous=ID]        a task manager registers (again,
//	                                      with the id it had); the lines
//	                                      after it are the tasks it reports:
//	                                      JOB ATTEMPT S/T STATE [ERROR]
//	lead                                  the scheduler becomes leader
//	heartbeat tm=ID
//	lose tm=ID [reason=X]                 its connection broke; a reason
//	                                      with spaces goes on the lines
//	                                      after the command
//	submit stages=P,P,... [restart=(N,D)] [backoff=(INITIAL,MAX,RESET)]
//	       [checkpoints=(INTERVAL,TIMEOUT,RETAIN)] [restore=ID]
//	       [sources=N | edges=FROM-TO,...]
//	                                      the first N stages are sources
//	                                      read by the next, which the others
//	                                      follow in a line; or the edges
//	                                      given
//	                                      restart is fixedDelay, backoff
//	                                      exponentialDelay
//	tick
//	status attempt=N tasks=S/T,... state=RUNNING [tm=ID] [msg=X]
//	                                      a message with spaces goes on the
//	                                      lines after the command
//	unreachable attempt=N task=S/T tm=ID err=X
//	ack attempt=N id=N tasks=S/T,...
//	decline attempt=N id=N task=S/T reason=X
//	written id=N [err=X]                  the metadata write of checkpoint N
//	rescale [par=N] [ops=UID:N,...]       operators are op0, op1, ... by stage
//	resume-failed attempt=N task=S/T tm=ID err=X
//	savepoint [trigger=T] [dir=D] [stop]
//	savepoint-done trigger=T id=N [path=P] [failure=F]
//	                                      the copy of checkpoint N ended
//	savepoint-status trigger=T
//	stop-savepoint path=X                 an old log's stop
//	cancel
//	autoscaler [enabled]                  replaces the job's autoscaler
//	                                      policy: on or off
//	autoscale reason=R [S=FROM->TO ...]   a decision of the autoscaler:
//	                                      stage S from FROM to TO
//	decisions                             the job's autoscaler decisions
//	state                                 the job, its tasks and checkpoints
//	exceptions                            the job's failures, oldest first
//
// status with state=FAILED takes [fn=F [key=K]]: the failure arose in
// function F of operator op's module mod, on a record of key K.
//
// Each event prints the actions it returned (and an error, if any). After
// each script its events are replayed on a new machine, which must end in
// the same state.
func TestLifecycle(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		h := &harness{epoch: time.Unix(1_000_000, 0).UTC(), written: map[int64]*ckmeta.Metadata{}}
		h.cfg = Config{HeartbeatInterval: time.Second, HeartbeatTimeout: 10 * time.Second}
		h.m = New(h.cfg)
		datadriven.RunTest(t, path, h.run)
		h.restoreEach(t)
		h.replay(t)
	})
}

type harness struct {
	m      *Machine
	cfg    Config
	events []func(*Machine)
	// states are the machine's state after each event (MarshalState), and
	// subs the jobs' submissions.
	states [][]byte
	subs   map[string]Submission
	epoch  time.Time
	// written are the metadata WriteMetadata actions asked to write.
	written map[int64]*ckmeta.Metadata
}

func (h *harness) run(t *testing.T, d *datadriven.TestData) string {
	var acts []Action
	var err error
	now := h.epoch
	if d.HasArg("at") {
		now = h.epoch.Add(dur(t, d, "at"))
	}
	job := "j"
	if d.HasArg("job") {
		d.ScanArgs(t, "job", &job)
	}
	switch d.Cmd {
	case "config":
		h.cfg = Config{HeartbeatInterval: dur(t, d, "heartbeat-interval"), HeartbeatTimeout: dur(t, d, "heartbeat-timeout")}
		if d.HasArg("max-history") {
			h.cfg.MaxHistory = intArg(t, d, "max-history")
		}
		h.cfg.PartialRescale = d.HasArg("partial-rescale")
		h.m, h.events, h.states = New(h.cfg), nil, nil
		return ""
	case "register":
		var id, previous string
		var adopted []TaskID
		addr, slots := "addr-"+strconv.Itoa(len(h.m.tms)+1), intArg(t, d, "slots")
		if d.HasArg("previous") {
			previous = strArg(t, d, "previous")
			addr = "addr-" + previous
		}
		reported := reportedTasks(t, d.Input)
		h.rec(func(m *Machine) { id, adopted, acts = m.Register(now, addr, "host", slots, previous, reported) })
		out := "registered " + id + "\n"
		for _, a := range adopted {
			out += "adopted " + a.String() + "\n"
		}
		return out + h.render(acts)
	case "lead":
		h.rec(func(m *Machine) { acts = m.Lead(now) })
	case "heartbeat":
		var known bool
		tm := strArg(t, d, "tm")
		h.rec(func(m *Machine) { known = m.Heartbeat(now, tm) })
		return fmt.Sprintf("known %t\n", known)
	case "lose":
		tm, reason := strArg(t, d, "tm"), strings.TrimSpace(d.Input)
		if d.HasArg("reason") {
			reason = strArg(t, d, "reason")
		}
		h.rec(func(m *Machine) { acts = m.LoseTaskManager(now, tm, reason) })
	case "submit":
		sub := h.submission(t, d, job)
		if h.subs == nil {
			h.subs = map[string]Submission{}
		}
		h.subs[job] = sub
		h.rec(func(m *Machine) { acts = m.Submit(now, sub) })
	case "tick":
		due, before := h.m.Due(now), h.dumpAll()
		h.rec(func(m *Machine) { acts = m.Tick(now) })
		if changed := len(acts) > 0 || h.dumpAll() != before; changed != due {
			t.Errorf("%s: Due said %t, but the tick changed the state: %t", d.Pos, due, changed)
		}
	case "status":
		state := strArg(t, d, "state")
		msg := strings.TrimSpace(d.Input)
		if d.HasArg("msg") {
			msg = strArg(t, d, "msg")
		}
		var failure *Failure
		if d.HasArg("fn") {
			failure = &Failure{Operator: "op", Module: "mod", Function: strArg(t, d, "fn")}
			if d.HasArg("key") {
				failure.Key = []byte(strArg(t, d, "key"))
				failure.KeySize = len(failure.Key)
			}
		}
		for _, task := range tasks(t, d, "tasks") {
			id := TaskID{Job: job, Attempt: intArg(t, d, "attempt"), Stage: task.Stage, Subtask: task.Subtask}
			tm := h.tmOf(id)
			if d.HasArg("tm") {
				tm = strArg(t, d, "tm")
			}
			h.rec(func(m *Machine) { acts = append(acts, m.TaskStatus(now, tm, id, state, msg, nil, failure)...) })
		}
	case "metrics":
		task := tasks(t, d, "task")[0]
		id := TaskID{Job: job, Attempt: intArg(t, d, "attempt"), Stage: task.Stage, Subtask: task.Subtask}
		in, out := intArg(t, d, "in"), intArg(t, d, "out")
		h.rec(func(m *Machine) { m.Metrics(id, Sample{RecordsIn: int64(in), RecordsOut: int64(out)}) })
	case "unreachable":
		task := tasks(t, d, "task")[0]
		id := TaskID{Job: job, Attempt: intArg(t, d, "attempt"), Stage: task.Stage, Subtask: task.Subtask}
		tm, e := strArg(t, d, "tm"), strArg(t, d, "err")
		h.rec(func(m *Machine) { acts = m.DeployUnreachable(now, id, tm, e) })
	case "ack":
		for _, task := range tasks(t, d, "tasks") {
			id := TaskID{Job: job, Attempt: intArg(t, d, "attempt"), Stage: task.Stage, Subtask: task.Subtask}
			ckpt := intArg(t, d, "id")
			h.rec(func(m *Machine) { acts = append(acts, m.Ack(now, id, int64(ckpt), snapshot(task, ckpt))...) })
		}
	case "decline":
		task := tasks(t, d, "task")[0]
		id := TaskID{Job: job, Attempt: intArg(t, d, "attempt"), Stage: task.Stage, Subtask: task.Subtask}
		ckpt, reason := int64(intArg(t, d, "id")), strArg(t, d, "reason")
		h.rec(func(m *Machine) { acts = m.Decline(now, id, ckpt, reason) })
	case "written":
		md := h.written[int64(intArg(t, d, "id"))]
		if md == nil {
			t.Fatalf("checkpoint %d's metadata was never to be written", intArg(t, d, "id"))
		}
		var werr error
		if d.HasArg("err") {
			werr = errors.New(strArg(t, d, "err"))
		}
		h.rec(func(m *Machine) { acts = m.MetadataWritten(now, job, md.Attempt, md, werr) })
	case "rescale":
		var par int
		if d.HasArg("par") {
			par = intArg(t, d, "par")
		}
		ops := opsArg(t, optArg(t, d, "ops"))
		h.rec(func(m *Machine) { acts, err = m.Rescale(now, job, par, ops) })
	case "resume-failed":
		task := tasks(t, d, "task")[0]
		id := TaskID{Job: job, Attempt: intArg(t, d, "attempt"), Stage: task.Stage, Subtask: task.Subtask}
		tm, e := strArg(t, d, "tm"), strArg(t, d, "err")
		h.rec(func(m *Machine) { acts = m.ResumeFailed(now, id, tm, e) })
	case "savepoint":
		req := SavepointRequest{Trigger: optArg(t, d, "trigger"), Dir: optArg(t, d, "dir"), Stop: d.HasArg("stop")}
		var id int64
		h.rec(func(m *Machine) { id, acts, err = m.Savepoint(now, job, req) })
		if err == nil {
			acts = append([]Action{fmt.Sprintf("savepoint checkpoint %d", id)}, acts...)
		}
	case "savepoint-done":
		trig, id, path, failure := strArg(t, d, "trigger"), int64(intArg(t, d, "id")), optArg(t, d, "path"), optArg(t, d, "failure")
		h.rec(func(m *Machine) { acts = m.SavepointDone(now, job, trig, id, path, failure) })
	case "savepoint-status":
		st, err := h.m.SavepointTrigger(job, strArg(t, d, "trigger"))
		if err != nil {
			return fmt.Sprintf("error: %v\n", err)
		}
		return triggerString(st)
	case "stop-savepoint":
		path := strArg(t, d, "path")
		h.rec(func(m *Machine) { acts = m.StopWithSavepoint(now, job, path) })
	case "cancel":
		h.rec(func(m *Machine) { acts, err = m.Cancel(now, job) })
	case "autoscaler":
		cfg := jobspec.Autoscaler{Enabled: d.HasArg("enabled")}
		h.rec(func(m *Machine) { acts, err = m.SetAutoscaler(now, job, cfg) })
	case "autoscale":
		dec := autoscaleDecision(t, d, now)
		h.rec(func(m *Machine) { acts, err = m.Autoscale(now, job, dec) })
	case "decisions":
		return h.decisions(job)
	case "state":
		return h.state(job)
	case "stats":
		st := h.m.Job(job).Stats
		return fmt.Sprintf("rescales %d, last restart downtime %s, last rescale downtime %s, checkpoints completed %d failed %d\n",
			st.Rescales, st.LastRestartDowntime, st.LastRescaleDowntime, st.CheckpointsCompleted, st.CheckpointsFailed)
	case "exceptions":
		return h.exceptions(job)
	case "history":
		return h.history(job)
	default:
		t.Fatalf("unknown command %q", d.Cmd)
	}
	out := h.render(acts)
	if err != nil {
		out += "error: " + err.Error() + "\n"
	}
	return out
}

// rec applies an event to the machine and records it for replay, with
// the state it left.
func (h *harness) rec(event func(*Machine)) {
	h.events = append(h.events, event)
	event(h.m)
	b, err := h.m.MarshalState()
	if err != nil {
		panic(err)
	}
	h.states = append(h.states, b)
}

// restoreEach restores the state after each event of a script into a new
// machine, which must write the same state back, and applies the rest of
// the events to it: it must end in the same state as the script's machine.
// A snapshot of the machine's state can stand for the events before it.
func (h *harness) restoreEach(t *testing.T) {
	if len(h.states) == 0 {
		return
	}
	want := h.states[len(h.states)-1]
	submission := func(job string) (Submission, error) {
		sub, ok := h.subs[job]
		if !ok {
			return Submission{}, fmt.Errorf("no submission of job %s", job)
		}
		return sub, nil
	}
	for i, st := range h.states {
		m := New(h.cfg)
		if err := m.RestoreState(st, submission); err != nil {
			t.Fatalf("restoring the state after event %d: %v", i+1, err)
		}
		if b, _ := m.MarshalState(); string(b) != string(st) {
			t.Fatalf("the state restored after event %d writes back differently:\n%s\nwant:\n%s", i+1, b, st)
		}
		for _, event := range h.events[i+1:] {
			event(m)
		}
		if b, _ := m.MarshalState(); string(b) != string(want) {
			t.Fatalf("restored after event %d and going on, the machine ends elsewhere:\n%s\nwant:\n%s", i+1, b, want)
		}
	}
}

// replay applies the events of a script to a new machine and checks that
// it ends in the same state: the machine has no hidden inputs, so a
// replicated log of its events could rebuild it.
func (h *harness) replay(t *testing.T) {
	want := h.dump()
	h.m = New(h.cfg)
	for _, event := range h.events {
		event(h.m)
	}
	if got := h.dump(); got != want {
		t.Errorf("replaying the events built another state:\n%s\nwant:\n%s", got, want)
	}
}

// dumpAll prints every job's state and every task manager.
func (h *harness) dumpAll() string {
	s := h.dump()
	for _, tm := range h.m.TaskManagers() {
		s += fmt.Sprintf("%+v\n", *tm)
	}
	return s
}

// history prints a job's history: how many entries were dropped, then
// each entry kept with its index among all the job's entries.
func (h *harness) history(job string) string {
	j := h.m.Job(job)
	var sb strings.Builder
	fmt.Fprintf(&sb, "dropped %d\n", j.HistoryDropped)
	for i, e := range j.History {
		fmt.Fprintf(&sb, "%d: %s %s %s\n", j.HistoryDropped+i, e.Time.Sub(h.epoch), e.State, e.Message)
	}
	return sb.String()
}

// dump prints every job's state.
func (h *harness) dump() string {
	var sb strings.Builder
	for _, j := range h.m.Jobs() {
		sb.WriteString(h.state(j.ID))
		fmt.Fprintf(&sb, "  history dropped %d\n", j.HistoryDropped)
		for _, e := range j.History {
			fmt.Fprintf(&sb, "  %s %s %s\n", e.Time.Sub(h.epoch), e.State, e.Message)
		}
	}
	return sb.String()
}

// submission is a job of stages at the given parallelisms: a source first,
// a sink last.
func (h *harness) submission(t *testing.T, d *datadriven.TestData, id string) Submission {
	var pars []int
	for _, p := range strings.Split(strArg(t, d, "stages"), ",") {
		n, err := strconv.Atoi(p)
		if err != nil {
			t.Fatal(err)
		}
		pars = append(pars, n)
	}
	sources := 1
	if d.HasArg("sources") {
		sources = intArg(t, d, "sources")
	}
	build := func(pars []int) *plan.Plan { return testGraphPlan(pars, sources) }
	if d.HasArg("edges") {
		edges := edgesArg(t, strArg(t, d, "edges"))
		build = func(pars []int) *plan.Plan { return testEdgePlan(pars, edges) }
	}
	sub := Submission{ID: id, Plan: build(pars), Replan: func(par int, ops map[string]int) (*plan.Plan, error) {
		if par > 128 {
			return nil, fmt.Errorf("parallelism %d is above maxParallelism 128", par)
		}
		ps := make([]int, len(pars))
		for i := range ps {
			ps[i] = par
			if par == 0 { // the spec's, as planFor has it
				ps[i] = pars[i]
			}
			if n, ok := ops[fmt.Sprintf("op%d", i)]; ok {
				ps[i] = n
			}
		}
		return build(ps), nil
	}}
	if d.HasArg("restart") {
		var n int
		var delay string
		d.ScanArgs(t, "restart", &n, &delay)
		sub.Strategy = jobspec.RestartStrategy{Type: "fixedDelay", Attempts: n, Delay: parseDur(t, delay)}
	}
	if d.HasArg("backoff") {
		var initial, most, reset string
		d.ScanArgs(t, "backoff", &initial, &most, &reset)
		sub.Strategy = jobspec.RestartStrategy{Type: jobspec.RestartExponentialDelay,
			InitialBackoff: parseDur(t, initial), MaxBackoff: parseDur(t, most), ResetAfter: parseDur(t, reset)}
	}
	if d.HasArg("checkpoints") {
		var interval, timeout string
		var retain int
		d.ScanArgs(t, "checkpoints", &interval, &timeout, &retain)
		sub.Checkpoints = &Checkpointing{Retain: retain, Store: "mem://ck",
			Coordinator: coordinator.Config{Interval: parseDur(t, interval), Timeout: parseDur(t, timeout), MaxConcurrent: 1}}
	}
	if d.HasArg("restore") {
		md := &ckmeta.Metadata{Version: ckmeta.Version, JobID: "old", ID: int64(intArg(t, d, "restore")), MaxParallelism: 128, Store: "mem://savepoint"}
		for i, p := range pars {
			md.Stages = append(md.Stages, ckmeta.Stage{Name: fmt.Sprintf("s%d", i), Parallelism: p})
		}
		sub.Restore = md
	}
	return sub
}

func testPlan(pars []int) *plan.Plan { return testGraphPlan(pars, 1) }

// testGraphPlan is a plan of stages at the given parallelisms: the first
// sources stages are sources that all send to the stage after them, and
// every later stage sends to the next; the last has a sink.
func testGraphPlan(pars []int, sources int) *plan.Plan {
	p := &plan.Plan{Job: &jobspec.Job{Name: "test", MaxParallelism: 128}}
	for i, n := range pars {
		st := plan.Stage{Index: i, Name: fmt.Sprintf("s%d", i), Parallelism: n,
			Operators: []jobspec.Operator{{UID: fmt.Sprintf("op%d", i)}}}
		if i < sources {
			st.Source = &jobspec.Source{}
		}
		if i == len(pars)-1 {
			st.Sink = &jobspec.Sink{}
		}
		from := []int{i - 1}
		if i == sources {
			from = from[:0]
			for s := range sources {
				from = append(from, s)
			}
		}
		for _, f := range from {
			if i < sources {
				break
			}
			e := plan.Edge{From: f, To: i, Partitioning: plan.Rebalance, Input: len(st.Inputs)}
			st.Inputs = append(st.Inputs, e)
			p.Stages[f].Outputs = append(p.Stages[f].Outputs, e)
		}
		p.Stages = append(p.Stages, st)
	}
	return p
}

// edgesArg parses FROM-TO,... into pairs of stage indexes.
func edgesArg(t *testing.T, s string) [][2]int {
	var out [][2]int
	for _, e := range strings.Split(s, ",") {
		from, to, ok := strings.Cut(e, "-")
		f, err1 := strconv.Atoi(from)
		g, err2 := strconv.Atoi(to)
		if !ok || err1 != nil || err2 != nil || f >= g {
			t.Fatalf("bad edge %q", e)
		}
		out = append(out, [2]int{f, g})
	}
	return out
}

// testEdgePlan is a plan of stages at the given parallelisms joined by
// rebalance edges: a stage no edge reaches is a source, one no edge leaves
// has a sink.
func testEdgePlan(pars []int, edges [][2]int) *plan.Plan {
	p := &plan.Plan{Job: &jobspec.Job{Name: "test", MaxParallelism: 128}}
	for i, n := range pars {
		p.Stages = append(p.Stages, plan.Stage{Index: i, Name: fmt.Sprintf("s%d", i), Parallelism: n})
	}
	for _, fg := range edges {
		to := &p.Stages[fg[1]]
		e := plan.Edge{From: fg[0], To: fg[1], Partitioning: plan.Rebalance, Input: len(to.Inputs)}
		to.Inputs = append(to.Inputs, e)
		p.Stages[fg[0]].Outputs = append(p.Stages[fg[0]].Outputs, e)
	}
	for i := range p.Stages {
		if st := &p.Stages[i]; len(st.Inputs) == 0 {
			st.Source = &jobspec.Source{}
		} else if len(st.Outputs) == 0 {
			st.Sink = &jobspec.Sink{}
		}
	}
	return p
}

// snapshot is a task's acknowledgement of checkpoint id: one snapshot
// file of its own.
func snapshot(task coordinator.Task, id int) []byte {
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

// tmOf returns the task manager a task was placed on.
func (h *harness) tmOf(id TaskID) string {
	if _, t := h.m.task(id); t != nil {
		return t.TaskManager
	}
	return "?"
}

func (h *harness) render(acts []Action) string {
	var sb strings.Builder
	for _, a := range acts {
		switch a := a.(type) {
		case string:
			sb.WriteString(a)
		case Deploy:
			fmt.Fprintf(&sb, "deploy %d/%d of attempt %d on %s", a.Task.Stage, a.Task.Subtask, a.Task.Attempt, a.TaskManager)
			if len(a.Downstream) > 0 {
				fmt.Fprintf(&sb, " downstream %s", endpoints(a.Downstream, a.Task.Attempt))
			}
			if a.Restore != nil {
				var r ckmeta.Restore
				if err := ckmeta.Unmarshal(a.Restore, &r); err != nil {
					panic(err)
				}
				fmt.Fprintf(&sb, " restoring %d", r.CheckpointID)
				if len(r.EndedInputs) > 0 {
					fmt.Fprintf(&sb, " inputs ended %v", r.EndedInputs)
				}
			}
		case CancelTasks:
			fmt.Fprintf(&sb, "cancel tasks of attempt %d on %s", a.Attempt, a.TaskManager)
			if a.Check {
				sb.WriteString(", checking it is reachable")
			}
		case TriggerCheckpoint:
			fmt.Fprintf(&sb, "trigger checkpoint %d of attempt %d on %s", a.ID, a.Attempt, a.TaskManager)
			if a.Suspend {
				sb.WriteString(", suspending")
			}
		case CancelTask:
			fmt.Fprintf(&sb, "cancel task %d/%d of attempt %d on %s", a.Task.Stage, a.Task.Subtask, a.Task.Attempt, a.TaskManager)
		case Resume:
			fmt.Fprintf(&sb, "resume %d/%d of attempt %d on %s in attempt %d's channels", a.Task.Stage, a.Task.Subtask, a.Task.Attempt, a.TaskManager, a.ChannelAttempt)
			if len(a.Downstream) > 0 {
				fmt.Fprintf(&sb, " downstream %s", endpoints(a.Downstream, a.Task.Attempt))
			}
			fmt.Fprintf(&sb, " upstream %d ops %v", a.UpstreamParallelism, a.OperatorParallelism)
		case WriteMetadata:
			h.written[a.Metadata.ID] = a.Metadata
			var subs []string
			for _, s := range a.Metadata.Subtasks {
				sub := fmt.Sprintf("%d/%d", s.Stage, s.Subtask)
				if s.Finished {
					sub += "(finished)"
				}
				subs = append(subs, sub)
			}
			fmt.Fprintf(&sb, "write metadata of checkpoint %d (attempt %d, subtasks %s)", a.Metadata.ID, a.Attempt, strings.Join(subs, " "))
		case NotifyCheckpoint:
			id := strconv.FormatInt(a.ID, 10)
			if a.ID == ckmeta.Final {
				id = "final"
			}
			fmt.Fprintf(&sb, "notify checkpoint %s of attempt %d on %s", id, a.Attempt, a.TaskManager)
		case DeleteFiles:
			fmt.Fprintf(&sb, "delete %s", strings.Join(a.Paths, " "))
		case CloseTaskManager:
			fmt.Fprintf(&sb, "close %s", a.TaskManager)
		case SavepointReady:
			fmt.Fprintf(&sb, "copy checkpoint %d into savepoint %s at %q", a.ID, a.Trigger, a.Dir)
		case JobState:
			fmt.Fprintf(&sb, "job %s %s: %s", a.Job, a.State, a.Message)
		default:
			panic(fmt.Sprintf("unknown action %T", a))
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// endpoints renders downstream endpoints as SUBTASK@TM, with #ATTEMPT
// when that is not attempt.
func endpoints(eps []Endpoint, attempt int) string {
	var ds []string
	for _, e := range eps {
		d := fmt.Sprintf("%d@%s", e.Subtask, e.TaskManager)
		if e.Attempt != attempt {
			d += fmt.Sprintf("#%d", e.Attempt)
		}
		ds = append(ds, d)
	}
	return strings.Join(ds, ",")
}

// opsArg parses UID:N,... into operators' parallelism; "" is none.
func opsArg(t *testing.T, s string) map[string]int {
	if s == "" {
		return nil
	}
	ops := map[string]int{}
	for _, kv := range strings.Split(s, ",") {
		uid, n, ok := strings.Cut(kv, ":")
		v, err := strconv.Atoi(n)
		if !ok || err != nil {
			t.Fatalf("bad operator parallelism %q", kv)
		}
		ops[uid] = v
	}
	return ops
}

// state prints a job, its tasks, its checkpoints and the task managers'
// slots.
func (h *harness) state(id string) string {
	var sb strings.Builder
	j := h.m.Job(id)
	if j == nil {
		return "no job\n"
	}
	fmt.Fprintf(&sb, "job %s %s: %s\n", j.ID, j.State, j.Message)
	fmt.Fprintf(&sb, "attempt %d restarts %d slots %d stages %s\n", j.Attempt, j.Restarts, j.Slots, parallelisms(j.Plan))
	if j.Backoff != 0 {
		fmt.Fprintf(&sb, "backoff %d, restart at %s\n", j.Backoff, j.RestartAt.Sub(h.epoch))
	}
	for si, stage := range j.Tasks {
		for sub, t := range stage {
			fmt.Fprintf(&sb, "  task %d/%d %s on %s", si, sub, t.State, t.TaskManager)
			if a := j.attemptOf(t); a != j.Attempt {
				fmt.Fprintf(&sb, " (attempt %d)", a)
			}
			if t.RecordsIn != 0 || t.RecordsOut != 0 {
				fmt.Fprintf(&sb, " records in %d out %d", t.RecordsIn, t.RecordsOut)
			}
			if t.Err != "" {
				fmt.Fprintf(&sb, " error %q", t.Err)
			}
			sb.WriteString("\n")
		}
	}
	if len(j.awaiting) > 0 {
		fmt.Fprintf(&sb, "awaiting %s\n", strings.Join(j.awaiting, " "))
	}
	if j.ckpt != nil {
		var done []string
		for _, md := range j.ckpt.completed {
			done = append(done, strconv.FormatInt(md.ID, 10))
		}
		fmt.Fprintf(&sb, "completed [%s] pending %v\n", strings.Join(done, " "), j.ckpt.coord.Pending())
		for _, tr := range j.ckpt.triggers {
			sb.WriteString("  " + triggerString(*tr))
		}
		for _, c := range j.Checkpoints() {
			fmt.Fprintf(&sb, "  checkpoint %d %s attempt %d", c.ID, c.Status, c.Attempt)
			if c.Message != "" {
				fmt.Fprintf(&sb, ": %s", c.Message)
			}
			if c.Path != "" {
				fmt.Fprintf(&sb, " at %s", c.Path)
			}
			sb.WriteString("\n")
		}
	}
	var tms []string
	for _, tm := range h.m.TaskManagers() {
		s := fmt.Sprintf("%s %d/%d", tm.ID, tm.Used, tm.Slots)
		if tm.rejoin {
			s += " (to register again)"
		}
		tms = append(tms, s)
	}
	sort.Strings(tms)
	fmt.Fprintf(&sb, "slots used: %s\n", strings.Join(tms, ", "))
	return sb.String()
}

// reportedTasks parses the tasks a task manager reports when it registers
// again, one a line: JOB ATTEMPT S/T STATE [ERROR].
func reportedTasks(t *testing.T, input string) []Reported {
	var out []Reported
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 4 {
			t.Fatalf("bad reported task %q: want JOB ATTEMPT S/T STATE [ERROR]", line)
		}
		attempt, err := strconv.Atoi(f[1])
		st, sub, ok := strings.Cut(f[2], "/")
		a, err1 := strconv.Atoi(st)
		b, err2 := strconv.Atoi(sub)
		if err != nil || !ok || err1 != nil || err2 != nil {
			t.Fatalf("bad reported task %q", line)
		}
		out = append(out, Reported{Task: TaskID{Job: f[0], Attempt: attempt, Stage: a, Subtask: b}, State: f[3], Err: strings.Join(f[4:], " ")})
	}
	return out
}

// optArg returns the value of an optional argument, or "".
func optArg(t *testing.T, d *datadriven.TestData, key string) string {
	if !d.HasArg(key) {
		return ""
	}
	return strArg(t, d, key)
}

// triggerString prints a savepoint trigger on one line.
func triggerString(st api.SavepointTrigger) string {
	s := fmt.Sprintf("savepoint %s %s checkpoint %d", st.Trigger, st.Status, st.ID)
	if st.Stop {
		s += " stop"
	}
	if st.Path != "" {
		s += " at " + st.Path
	}
	if st.Failure != "" {
		s += ": " + st.Failure
	}
	return s + "\n"
}

func strArg(t *testing.T, d *datadriven.TestData, key string) string {
	var s string
	d.ScanArgs(t, key, &s)
	return s
}

func intArg(t *testing.T, d *datadriven.TestData, key string) int {
	var n int
	d.ScanArgs(t, key, &n)
	return n
}

func dur(t *testing.T, d *datadriven.TestData, key string) time.Duration {
	return parseDur(t, strArg(t, d, key))
}

func parseDur(t *testing.T, s string) time.Duration {
	v, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func tasks(t *testing.T, d *datadriven.TestData, key string) []coordinator.Task {
	var out []coordinator.Task
	for _, p := range strings.Split(strArg(t, d, key), ",") {
		st, sub, ok := strings.Cut(p, "/")
		a, err1 := strconv.Atoi(st)
		b, err2 := strconv.Atoi(sub)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("bad task %q", p)
		}
		out = append(out, coordinator.Task{Stage: a, Subtask: b})
	}
	return out
}

// exceptions prints a job's failures, oldest first.
func (h *harness) exceptions(id string) string {
	j := h.m.Job(id)
	if j == nil {
		return "no job\n"
	}
	var sb strings.Builder
	if j.Exceptions.Dropped > 0 {
		fmt.Fprintf(&sb, "dropped %d\n", j.Exceptions.Dropped)
	}
	for _, e := range j.Exceptions.List {
		fmt.Fprintf(&sb, "%s attempt %d", e.Time.Sub(h.epoch), e.Attempt)
		if e.Task != nil {
			fmt.Fprintf(&sb, " task %d/%d", e.Task.Stage, e.Task.Subtask)
		}
		if e.TaskManager != "" {
			fmt.Fprintf(&sb, " on %s", e.TaskManager)
		}
		if f := e.Failure; f != nil {
			fmt.Fprintf(&sb, " in %s/%s/%s", f.Operator, f.Module, f.Function)
			if f.KeySize > 0 {
				fmt.Fprintf(&sb, " key %q", f.Key)
			}
		}
		fmt.Fprintf(&sb, ": %s\n", e.Message)
	}
	return sb.String()
}

// autoscaleDecision reads a decision: reason=R and, per stage, S=FROM->TO.
func autoscaleDecision(t *testing.T, d *datadriven.TestData, now time.Time) autoscale.Decision {
	dec := autoscale.Decision{At: now, Reason: strArg(t, d, "reason")}
	for _, a := range d.CmdArgs {
		stage, err := strconv.Atoi(a.Key)
		if err != nil {
			continue
		}
		var from, to int
		if _, err := fmt.Sscanf(a.Vals[0], "%d->%d", &from, &to); err != nil {
			t.Fatalf("%s: want FROM->TO", a)
		}
		dec.Vertices = append(dec.Vertices, autoscale.VertexDecision{ID: stage, Current: from, Computed: to, New: to})
		dec.Change = dec.Change || from != to
	}
	return dec
}

// decisions renders a job's autoscaler policy and decisions.
func (h *harness) decisions(job string) string {
	a := h.m.Job(job).Autoscaler
	var sb strings.Builder
	fmt.Fprintf(&sb, "enabled %t, rescales %d, last rescale %s\n", a.Config.Enabled, a.Rescales, h.offset(a.LastRescale))
	for _, d := range a.Decisions {
		fmt.Fprintf(&sb, "%s change=%t: %s\n", h.offset(d.At), d.Change, d.Reason)
	}
	return sb.String()
}

// offset renders a time as its offset from the epoch, "-" for zero.
func (h *harness) offset(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Sub(h.epoch).String()
}
