package task

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/floe-stream/floe/host/exchange"
	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
)

// scriptedInbox is a task's input under a script's control: each Recv asks
// the script for the next message, so the script knows the task has
// handled the previous one (and replayed what alignment held) when the
// task asks again.
type scriptedInbox struct {
	senders int
	asks    chan struct{}
	msgs    chan exchange.Message
}

func (s *scriptedInbox) Senders() int { return s.senders }
func (s *scriptedInbox) Pending() int { return 0 }
func (s *scriptedInbox) Recv(ctx context.Context) (exchange.Message, error) {
	select {
	case s.asks <- struct{}{}:
	case <-ctx.Done():
		return exchange.Message{}, ctx.Err()
	}
	select {
	case m := <-s.msgs:
		return m, nil
	case <-ctx.Done():
		return exchange.Message{}, ctx.Err()
	}
}

// downstream writes down what the task sends on, one message a line.
type downstream struct {
	mu  sync.Mutex
	log []string
	// suspended gets the id of every suspend barrier sent.
	suspended chan int64
}

func (d *downstream) Send(_ context.Context, m exchange.Message) error {
	var line string
	switch {
	case m.End:
		line = "end"
	case m.Barrier > 0 && m.Suspend:
		line = fmt.Sprintf("suspend barrier %d", m.Barrier)
	case m.Barrier > 0:
		line = fmt.Sprintf("barrier %d", m.Barrier)
	case m.IsWatermark && m.Idle:
		line = "idle at " + watermarkString(m.Watermark)
	case m.IsWatermark:
		line = "watermark " + watermarkString(m.Watermark)
	default:
		var vs []string
		for _, r := range m.Batch.Records {
			vs = append(vs, string(r.Value))
		}
		line = "data " + strings.Join(vs, " ")
	}
	d.mu.Lock()
	d.log = append(d.log, line)
	d.mu.Unlock()
	if m.Suspend && d.suspended != nil {
		d.suspended <- m.Barrier
	}
	return nil
}

func (d *downstream) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.log
	d.log = nil
	return out
}

func watermarkString(wm int64) string {
	if wm == 1<<63-1 {
		return "max"
	}
	return strconv.FormatInt(wm, 10)
}

// inboxRun is a task of a middle stage without operators, run by a script.
type inboxRun struct {
	in      *scriptedInbox
	out     *downstream
	clock   atomic.Int64 // ms since epoch
	done    chan error
	asked   bool // the task waits in Recv
	ended   bool
	err     error
	mu      sync.Mutex
	acks    []string
	started time.Time
	plan    *plan.Plan
	task    *Task
	co      []int
	op      coOp
	// old is the inbox a resumed task had before; readOld tells that the
	// task read it after its suspend barrier.
	old     *scriptedInbox
	readOld bool
}

// inboxPlan returns the plan of a task that reads one upstream stage per
// element of upstream, of that parallelism: stage i for i < len(upstream),
// then the task's stage "middle" of parallelism 1, then a sink stage. With
// co set, the middle stage runs a coProcess that upper-cases the records of
// its input 0 and passes those of input 1 as they are (udfs/testops'
// upper and misbehave), and upstream stage i feeds its input co[i]; op,
// when its module is set, is the coProcess instead, and its input
// op.broadcast (>= 0) a broadcast input.
func inboxPlan(upstream, co []int, op coOp) *plan.Plan {
	job := &jobspec.Job{Name: "script", MaxParallelism: 128}
	p := &plan.Plan{Job: job}
	mid := len(upstream)
	middle := plan.Stage{Index: mid, Name: "middle", Parallelism: 1}
	if co != nil {
		middle.KeyedInput = true
		middle.Operators = []jobspec.Operator{{Type: jobspec.OperatorCoProcess, UID: "co", Module: "testops", Function: "upper", Function2: "misbehave"}}
		if op.module != "" {
			o := &middle.Operators[0]
			o.Module, o.Function, o.Function2, o.Inputs = op.module, op.functions[0], op.functions[1], []string{"in0", "in1"}
			if op.broadcast >= 0 {
				o.Broadcast = o.Inputs[op.broadcast]
			}
		}
	}
	for i, n := range upstream {
		e := plan.Edge{From: i, To: mid, Partitioning: plan.Rebalance, Input: i}
		if co != nil {
			e.StepInput = co[i]
			if op.module != "" && op.broadcast == co[i] {
				e.Partitioning = plan.Broadcast
			}
		}
		p.Stages = append(p.Stages, plan.Stage{Index: i, Name: fmt.Sprintf("source%d", i), Parallelism: n, Outputs: []plan.Edge{e}})
		middle.Inputs = append(middle.Inputs, e)
	}
	out := plan.Edge{From: mid, To: mid + 1, Partitioning: plan.Rebalance}
	middle.Outputs = []plan.Edge{out}
	p.Stages = append(p.Stages, middle, plan.Stage{Index: mid + 1, Name: "sink", Parallelism: 1, Inputs: []plan.Edge{out}})
	return p
}

// coOp is the coProcess of an inbox script given module= and functions=,
// with its input broadcast a broadcast input (-1: none).
type coOp struct {
	module    string
	functions []string
	broadcast int
}

func startInbox(t *testing.T, upstream, co []int, op coOp, ended []int) *inboxRun {
	p := inboxPlan(upstream, co, op)
	mid := len(upstream)
	r := &inboxRun{
		in:      &scriptedInbox{senders: p.Channels(mid), asks: make(chan struct{}), msgs: make(chan exchange.Message)},
		out:     &downstream{suspended: make(chan int64, 1)},
		done:    make(chan error, 1),
		started: time.Unix(1_000_000, 0),
		plan:    p,
		co:      co,
		op:      op,
	}
	env := Env{
		Checkpoints: &Checkpointing{
			TempDir: t.TempDir(),
			Ack: func(id int64, st ckmeta.SubtaskState) {
				r.mu.Lock()
				r.acks = append(r.acks, fmt.Sprintf("ack %d: aligned in %dms", id, st.AlignmentMillis)+broadcastKeys(st))
				r.mu.Unlock()
			},
			Decline: func(id int64, reason string) {
				r.mu.Lock()
				r.acks = append(r.acks, fmt.Sprintf("decline %d: %s", id, reason))
				r.mu.Unlock()
			},
		},
		Now: func() time.Time { return r.started.Add(time.Duration(r.clock.Load()) * time.Millisecond) },
	}
	if co != nil {
		env.Module = testopsModule(t)
		if op.module != "" {
			env.Module = udfModule(t, op.module)
		}
		env.OpenState = func(int, int) (StateBackend, error) { return OpenState(jobspec.StateMemory, t.TempDir()) }
		env.Checkpoints.Store = &memStore{}
	}
	spec := Spec{Plan: p, Stage: mid}
	if ended != nil {
		spec.Restore = &ckmeta.Restore{EndedInputs: ended}
	}
	task := New(spec, env, IO{In: r.in, Out: [][]exchange.Sender{{r.out}}})
	r.task = task
	go func() { r.done <- task.Run(context.Background()) }()
	t.Cleanup(func() {
		if !r.ended {
			t.Error("the script left the task running: end every input")
		}
	})
	return r
}

// ready waits until the task asks for its next message or has returned.
func (r *inboxRun) ready() {
	if r.asked || r.ended || r.readOld {
		return
	}
	var old chan struct{} // nil, which never delivers, but after a resume
	if r.old != nil {
		old = r.old.asks
	}
	select {
	case <-r.in.asks:
		r.asked = true
	case r.err = <-r.done:
		r.ended = true
	case <-old:
		r.readOld = true
	}
}

// readyOrSuspended is ready, but for a task that sends a suspend barrier
// on, after which it reads no more.
func (r *inboxRun) readyOrSuspended() {
	if r.asked || r.ended {
		return
	}
	select {
	case <-r.in.asks:
		r.asked = true
	case <-r.out.suspended:
	case r.err = <-r.done:
		r.ended = true
	}
}

// resume hands the task a new inbox reading upstream stages of the given
// parallelism, the task's own stage unchanged; the old inbox must not be
// read again.
func (r *inboxRun) resume(upstream []int, middle int) error {
	p := inboxPlan(upstream, r.co, r.op)
	if middle != 0 {
		p.Stages[len(upstream)].Parallelism = middle
	}
	in := &scriptedInbox{senders: p.Channels(len(upstream)), asks: make(chan struct{}), msgs: make(chan exchange.Message)}
	if err := r.task.Resume(Rewire{Plan: p, IO: IO{In: in, Out: [][]exchange.Sender{{r.out}}}}); err != nil {
		return err
	}
	r.old, r.in, r.plan, r.asked = r.in, in, p, false
	return nil
}

func (r *inboxRun) send(m exchange.Message) {
	r.ready()
	if r.ended || r.readOld {
		return
	}
	r.in.msgs <- m
	r.asked = false
}

// parseInboxMsg reads "IN: data V...", "IN: barrier N", "IN: watermark
// T", "IN: idle T" or "IN: end". IN is a channel of the task's inbox, or
// sS/N for the channel of subtask N of upstream stage S, numbered as p
// numbers them.
func parseInboxMsg(t *testing.T, p *plan.Plan, line string) exchange.Message {
	in, rest, ok := strings.Cut(line, ":")
	from, err := strconv.Atoi(in)
	if st, sub, isSub := strings.Cut(strings.TrimPrefix(in, "s"), "/"); isSub && strings.HasPrefix(in, "s") {
		si, err1 := strconv.Atoi(st)
		n, err2 := strconv.Atoi(sub)
		if err1 != nil || err2 != nil || si >= len(p.Stages) || len(p.Stages[si].Outputs) == 0 {
			t.Fatalf("bad sender %q", in)
		}
		from, err = p.Channel(p.Stages[si].Outputs[0], n), nil
	}
	if !ok || err != nil {
		t.Fatalf("bad message %q", line)
	}
	f := strings.Fields(rest)
	m := exchange.Message{From: from}
	num := func() int64 {
		if len(f) != 2 {
			t.Fatalf("bad message %q", line)
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			t.Fatalf("bad message %q", line)
		}
		return n
	}
	switch f[0] {
	case "data":
		m.Batch = exchange.GetBatch()
		for _, v := range f[1:] {
			m.Batch.Append(nil, []byte(v), 0)
		}
	case "barrier", "suspend":
		m.Barrier, m.Suspend = num(), f[0] == "suspend"
	case "watermark", "idle":
		m.IsWatermark, m.Watermark, m.Idle = true, num(), f[0] == "idle"
	case "end":
		m.End = true
	default:
		t.Fatalf("bad message %q", line)
	}
	return m
}

// TestInbox runs the scripts in testdata/inbox against a whole task that
// reads an inbox: a stage between others, with checkpoints and no
// operators, so what it sends on is what it received, in the order the
// task let it through. Commands:
//
//	new inputs=N     start the task, reading N subtasks of one stage
//	new upstream=N,M start the task, reading stages of N, M... subtasks
//	  co=I,J         ... with a coProcess (inboxPlan) reading stage 0 as
//	                 its input I, stage 1 as its input J, and so on
//	  module=M functions=F,G  ... running udfs/M's F and G
//	  broadcast=I    ... whose input I is a broadcast input; acks then
//	                 list the keys of its broadcast states
//	  ended=I,J      ... restored with channels I, J... ended, their
//	                 senders not deployed (ckmeta.Restore.EndedInputs)
//	recv             one message a line, as in package align's scripts,
//	                 from a channel or from sS/N: subtask N of stage S
//	                 (suspend N is barrier N marked Suspend)
//	resume upstream=N,M  hand the suspended task a new inbox reading
//	                 stages of N, M... subtasks (its stage unchanged)
//	  middle=P       ... in a plan where its stage has P subtasks
//	clock +D         advance the task's clock
//	wait             wait for the task to return and print its acks
//
// recv prints what the task sent downstream once it has handled them.
func TestInbox(t *testing.T) {
	datadriven.Walk(t, "testdata/inbox", func(t *testing.T, path string) {
		var r *inboxRun
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "new":
				var upstream, co []int
				if d.HasArg("upstream") {
					upstream = intList(t, d, "upstream")
				} else {
					var n int
					d.ScanArgs(t, "inputs", &n)
					upstream = []int{n}
				}
				if d.HasArg("co") {
					co = intList(t, d, "co")
				}
				op := coOp{broadcast: -1}
				if d.HasArg("module") {
					var fns string
					d.ScanArgs(t, "module", &op.module)
					d.ScanArgs(t, "functions", &fns)
					op.functions = strings.Split(fns, ",")
				}
				if d.HasArg("broadcast") {
					d.ScanArgs(t, "broadcast", &op.broadcast)
				}
				var ended []int
				if d.HasArg("ended") {
					ended = intList(t, d, "ended")
				}
				r = startInbox(t, upstream, co, op, ended)
				if len(upstream) == 1 {
					return "ok\n"
				}
				return fmt.Sprintf("ok: %d channels\n", r.plan.Channels(len(upstream)))
			case "recv":
				var last exchange.Message
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					last = parseInboxMsg(t, r.plan, line)
					r.send(last)
				}
				if last.Suspend {
					r.readyOrSuspended()
				} else {
					r.ready()
				}
				if r.readOld {
					return "error: the task read its old inbox after the suspend barrier\n"
				}
				out := r.out.take()
				if len(out) == 0 {
					return "(nothing sent)\n"
				}
				return strings.Join(out, "\n") + "\n"
			case "resume":
				var middle int
				if d.HasArg("middle") {
					d.ScanArgs(t, "middle", &middle)
				}
				if err := r.resume(intList(t, d, "upstream"), middle); err != nil {
					return fmt.Sprintf("error: %v\n", err)
				}
				return fmt.Sprintf("ok: %d channels\n", r.plan.Channels(len(r.plan.Stages)-2))
			case "clock":
				v, err := time.ParseDuration(strings.TrimPrefix(d.CmdArgs[0].Key, "+"))
				if err != nil {
					t.Fatal(err)
				}
				r.clock.Add(v.Milliseconds())
				return "ok\n"
			case "wait":
				if r.readOld {
					t.Fatal("the task read its old inbox after the suspend barrier; it cannot be ended")
				}
				if !r.ended {
					r.err, r.ended = <-r.done, true
				}
				var sb strings.Builder
				for _, l := range r.out.take() {
					fmt.Fprintln(&sb, l)
				}
				r.mu.Lock()
				acks := slices.Clone(r.acks)
				r.mu.Unlock()
				slices.Sort(acks)
				for _, a := range acks {
					fmt.Fprintln(&sb, a)
				}
				if r.err != nil {
					fmt.Fprintf(&sb, "error: %v\n", r.err)
				} else {
					sb.WriteString("ok\n")
				}
				return sb.String()
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

// broadcastKeys renders the keys of the broadcast states a task acked
// with: "; NS: K1 K2".
func broadcastKeys(st ckmeta.SubtaskState) string {
	var sb strings.Builder
	for _, l := range st.Operator {
		if l.Mode != ckmeta.ModeBroadcast || len(l.Elems) == 0 {
			continue
		}
		fmt.Fprintf(&sb, "; %s:", l.Namespace)
		for _, e := range l.Elems {
			n := binary.LittleEndian.Uint32(e)
			fmt.Fprintf(&sb, " %s", e[4:4+n])
		}
	}
	return sb.String()
}

// intList scans the argument key as a list of integers: key=1,2,3.
func intList(t *testing.T, d *datadriven.TestData, key string) []int {
	var list string
	d.ScanArgs(t, key, &list)
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			d.Fatalf(t, "bad %s %q", key, list)
		}
		out = append(out, n)
	}
	return out
}
