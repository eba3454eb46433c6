package task

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/eventtime"
	"github.com/floe-stream/floe/host/exchange"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/sqlop"
	"github.com/floe-stream/floe/host/task/internal/align"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/snapshot"
	"github.com/floe-stream/floe/storage/state"
)

// DefaultBatchSize is how many records a task moves per batch.
const DefaultBatchSize = 1024

// Operator is one chained step of a task: a Wasm instance or a built-in.
type Operator interface {
	// Process appends the output for the records of in to out.
	Process(ctx context.Context, in, out *record.Batch) error
	// Close releases the operator, flushing what it holds.
	Close(ctx context.Context) error
}

// StateBackend is the keyed state of one subtask.
type StateBackend interface {
	udf.Keyed
	// Flush makes buffered writes durable; Close flushes and releases.
	Flush() error
	Close() error
	// TrackChanges, WriteSnapshot, TakeSnapshot and Restore are checkpointing: see
	// storage/state.Backend.
	TrackChanges()
	WriteSnapshot(w *snapshot.Writer, full bool) error
	TakeSnapshot(full bool) (*state.Capture, error)
	Restore(r io.ReaderAt, size int64, rng keygroup.Range) (int64, error)
	// ScanRange reads the state of key groups r: see
	// storage/state.Backend.
	ScanRange(r keygroup.Range, fn func(kg uint16, ns string, key, rest, val []byte) error) error
	// TrackSizes and SizeOf keep the size of each operator's state: see
	// storage/state.Backend.
	TrackSizes() error
	SizeOf(operatorUID string) state.Size
}

// Env is what a task takes from the process it runs in.
type Env struct {
	// Module returns the compiled module the job spec names name.
	Module func(ctx context.Context, name string) (*udf.Module, error)
	// OpenState opens the keyed state of a stateful subtask.
	OpenState func(stage, subtask int) (StateBackend, error)
	// Stdout is shared by the stdout sinks of the process; see
	// connector.Env.
	Stdout io.Writer
	// Logger receives task and guest logs.
	Logger *slog.Logger
	// GuestLogger, if set, receives the guests' log calls instead of
	// Logger (a task manager keeps them for users to read, package
	// tasklog).
	GuestLogger *slog.Logger
	// BatchSize is the number of records per batch; 0 means
	// DefaultBatchSize.
	BatchSize int
	// CallTimeout bounds each call into a guest; 0 means the host default.
	CallTimeout time.Duration
	// Checkpoints is nil when the job takes no checkpoints.
	Checkpoints *Checkpointing
	// RetainState keeps a finished task's keyed state open for Query
	// until CloseState.
	RetainState bool
	// Started, if set, is called once the task has opened its source,
	// operators and sink and is about to process records.
	Started func(t *Task)
	// Now is the task's clock, for watermark intervals and idleness,
	// processing-time timers and windows, and the durations it reports;
	// nil means time.Now. The task reads no other clock, but it waits for
	// its next processing-time timer with a time.Timer.
	Now func() time.Time
}

// Spec names the subtask to run.
type Spec struct {
	Plan    *plan.Plan
	Stage   int
	Subtask int
	// Restore is the task's share of the checkpoint its attempt restores
	// from, or nil.
	Restore *ckmeta.Restore
}

// IO connects a task to its neighbours: In, the inbox of every channel
// into the task (numbered as plan.Plan.Channel does), for a stage with
// inputs; Out for a stage with outputs, indexed by output edge and then as
// plan.Plan.Targets lists the edge's receiving subtasks.
type IO struct {
	In  exchange.Receiver
	Out [][]exchange.Sender
}

// timedSender counts the time Send blocks.
type timedSender struct {
	exchange.Sender
	m   *Metrics
	now func() time.Time
}

func (s timedSender) Send(ctx context.Context, m exchange.Message) error {
	start := s.now().UnixNano()
	s.m.BlockedSince.Store(start)
	err := s.Sender.Send(ctx, m)
	s.m.BlockedNanos.Add(s.now().UnixNano() - start)
	s.m.BlockedSince.Store(0)
	return err
}

// Task is one subtask of a stage.
type Task struct {
	spec  Spec
	stage *plan.Stage
	env   Env
	io    IO
	name  string

	source connector.Source
	sink   connector.Sink
	router *outputs
	ops    []Operator
	// chained is the number of ops that run in the chain; the others are
	// the keyers of the output edges (outputs.go), whose keyBys keyBys
	// lists.
	chained int
	keyBys  []*jobspec.Operator
	state   StateBackend
	// bufs alternate as the input and output of chained operators.
	bufs [2]record.Batch
	// co is the two-input operator (a coProcess or a join) that heads the
	// chain, or nil; inputOf maps each inbox channel to the input of co its
	// records come by (plan.Plan.StepInputs), so that a batch goes to the
	// function, or the join side, of its input.
	co      twoInputOp
	inputOf []int
	ckpt    *checkpointer
	// align holds back the inputs that delivered a checkpoint's barrier
	// until all have; it is set for a task that reads an inbox.
	align *align.Aligner[exchange.Message]
	// wg tracks the task's background uploads.
	wg sync.WaitGroup
	// wake interrupts an idle input wait for checkpoints and queries.
	wake chan struct{}
	q    querier
	// state is held while the task uses its keyed state, and by lookups
	// (gate.go); ready is set once the task is open and lookups may take
	// it.
	stateGate gate
	ready     atomic.Bool

	// Event time and timers (eventtime.go).
	lists     *udf.OperatorLists
	timed     []timedOp
	et        *sourceTime
	tracker   *eventtime.Tracker
	timerOut  record.Batch
	timerBuf  []timer.Timer // timers popped for one batchTimerTarget call
	wakeTimer *time.Timer
	queues    map[string]*timer.Queue // by operator uid
	sides     []sideSinks             // by operator index

	Metrics Metrics
	opm     []*OperatorMetrics // Metrics.Operators(), by operator index

	// susp is the task's side of a partial rescale (suspend.go).
	susp suspension
}

// New prepares a task; Run opens and runs it.
func New(spec Spec, env Env, io IO) *Task {
	if env.BatchSize == 0 {
		env.BatchSize = DefaultBatchSize
	}
	if env.Logger == nil {
		env.Logger = slog.New(slog.DiscardHandler)
	}
	if env.GuestLogger == nil {
		env.GuestLogger = env.Logger
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	st := &spec.Plan.Stages[spec.Stage]
	t := &Task{
		spec: spec, stage: st, env: env, io: io,
		name: fmt.Sprintf("%s (%d/%d)", st.Name, spec.Subtask+1, st.Parallelism),
		wake: make(chan struct{}, 1),
		q:    querier{queue: make(chan query, 16)},
		susp: suspension{resume: make(chan Rewire, 1)},
	}
	t.Metrics.init()
	return t
}

// poke wakes the task loop if it waits for input.
func (t *Task) poke() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// Name returns the task's name for logs and errors: the stage's steps and
// the subtask, e.g. "split -> by-word (2/4)".
func (t *Task) Name() string { return t.name }

// Run opens the task, runs it to the end of its input and closes it. It
// returns nil when the input ended and every record was handed on, ctx's
// error when cancelled, and the first failure otherwise.
func (t *Task) Run(ctx context.Context) (err error) {
	defer func() {
		t.endQueries(err == nil && t.env.RetainState)
		if cerr := t.close(ctx, err == nil); err == nil {
			err = cerr
		}
		if err != nil && ctx.Err() == nil {
			err = fmt.Errorf("task %s: %w", t.name, err)
		}
	}()
	if err := t.open(ctx); err != nil {
		return err
	}
	t.openedOperators()
	t.Metrics.StartNanos.Store(t.env.Now().UnixNano())
	t.ready.Store(true)
	if t.env.Started != nil {
		t.env.Started(t)
	}
	if t.source != nil {
		err = t.runSource(ctx)
	} else {
		err = t.runInbox(ctx)
	}
	if err != nil {
		return err
	}
	if err := t.endWindows(ctx); err != nil {
		return err
	}
	t.endTimers()
	if t.router != nil {
		return t.router.End(ctx)
	}
	return t.finalCommit(ctx)
}

// finalCommit, at the end of a checkpointed job's input, seals the sink's
// last output and commits it only once the whole job has ended: a failure
// anywhere before then restores the last checkpoint, and output committed
// early would be written twice. Meanwhile the rest of the job may run on
// (another branch of a graph): checkpoints are triggered at the task, which
// acknowledges each with the sealed output, so that a restore from one
// commits it rather than losing it; once such a checkpoint completes, the
// output is committed at once, as after Flink's final checkpoint.
func (t *Task) finalCommit(ctx context.Context) error {
	tx, ok := t.sink.(connector.Transactional)
	if !ok || t.ckpt == nil {
		return nil
	}
	final, err := tx.PreCommit(ckmeta.Final)
	if err != nil {
		return err
	}
	t.ending()
	t.ckpt.cfg.Ending()
	var held int64 // the first checkpoint acknowledged with the final output
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case id := <-t.ckpt.triggers:
			if err := t.ackEnded(id, final); err != nil {
				return err
			}
			if held == 0 {
				held = id
			}
		case id := <-t.ckpt.commits:
			last := id == ckmeta.Final
			if held != 0 && id >= held {
				id = ckmeta.Final // a completed checkpoint holds it all
			}
			if err := tx.Commit(id); err != nil || last {
				return err
			}
		}
	}
}

// spawn runs fn in a goroutine that Run waits for before it returns.
func (t *Task) spawn(fn func()) {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		fn()
	}()
}

func (t *Task) split() connector.SplitInfo {
	return connector.SplitInfo{Subtask: t.spec.Subtask, Parallelism: t.stage.Parallelism}
}

// open creates the source, operators, sink and router of the stage.
func (t *Task) open(ctx context.Context) error {
	var err error
	if s := t.stage.Source; s != nil {
		if t.source, err = openSource(s, t.split(), t.env.Logger.With("task", t.name)); err != nil {
			return err
		}
	}
	if t.stage.Stateful() {
		if t.state, err = t.env.OpenState(t.spec.Stage, t.spec.Subtask); err != nil {
			return fmt.Errorf("opening keyed state: %w", err)
		}
		if err := t.state.TrackSizes(); err != nil {
			return fmt.Errorf("opening keyed state: %w", err)
		}
	}
	t.lists = udf.NewOperatorLists()
	if t.spec.Restore != nil && t.env.Checkpoints != nil {
		t.presetOperatorState(t.spec.Restore)
	}
	if s := t.stage.Source; s != nil && s.EventTime != nil {
		t.et = &sourceTime{gen: eventtime.NewGenerator(s.EventTime.MaxOutOfOrderness),
			pacer: eventtime.NewPacer(s.EventTime.Interval, s.EventTime.IdleTimeout, t.env.Now())}
		if !s.EventTime.Field.IsZero() {
			t.et.extract = eventtime.NewExtractor(s.EventTime)
		}
		if r, ok := t.source.(connector.SplitReporter); ok {
			t.et.reporter, t.et.splits = r, eventtime.NewSplits(s.EventTime.MaxOutOfOrderness, s.EventTime.IdleTimeout)
		}
	}
	if err := t.openSideSinks(ctx); err != nil {
		return err
	}
	for i := range t.stage.Operators {
		spec := &t.stage.Operators[i]
		var op Operator
		switch spec.Type {
		case jobspec.OperatorWindow:
			op, err = t.windowOperator(ctx, spec)
		case jobspec.OperatorIntervalJoin, jobspec.OperatorWindowJoin:
			op, err = t.joinOperator(ctx, spec)
		case jobspec.OperatorSQL:
			op, err = t.sqlOperator(ctx, spec)
		case jobspec.OperatorSQLGroup:
			if t.state == nil {
				return fmt.Errorf("operator %s: a sqlGroup needs keyed state", spec.UID)
			}
			op, err = t.sqlGroup(ctx, spec)
		case jobspec.OperatorSQLTopN:
			if t.state == nil {
				return fmt.Errorf("operator %s: a sqlTopN needs keyed state", spec.UID)
			}
			op, err = sqlop.NewTopN(spec.UID, spec.SQLTopN, t.state)
		case jobspec.OperatorSQLOver:
			op, err = t.sqlOver(spec)
		default:
			op, err = t.instance(ctx, spec, t.stage.KeyedInput)
		}
		if err != nil {
			return err
		}
		if spec.Type.TwoInput() && i == 0 {
			t.co, _ = op.(twoInputOp)
			t.inputOf = t.spec.Plan.StepInputs(t.spec.Stage)
		}
		switch o := op.(type) {
		case *udf.Instance:
			if t.stage.KeyedInput && t.state != nil && o.HasTimerHandler() {
				t.timed = append(t.timed, timedOp{idx: len(t.ops), in: o, q: t.queues[spec.UID]})
			}
		case windowOp, joinOp, *sqlop.Over, *sqlop.FinalGroup:
			t.timed = append(t.timed, timedOp{idx: len(t.ops), in: o.(timerTarget), q: t.queues[spec.UID]})
		}
		t.ops = append(t.ops, op)
	}
	t.chained = len(t.ops)
	if s := t.stage.Sink; s != nil {
		sink, err := openSink(s, t.split(), t.env.Stdout, t.env.Checkpoints != nil, t.spec.Restore != nil, t.env.Logger.With("task", t.name))
		if err != nil {
			return err
		}
		t.sink = sink
	}
	if t.env.Checkpoints != nil {
		t.ckpt = newCheckpointer(t.env.Checkpoints, t.wake)
		if t.spec.Restore != nil {
			if err := t.restore(ctx, t.spec.Restore); err != nil {
				return err
			}
			if err := t.restoreTimers(); err != nil {
				return fmt.Errorf("restoring timers: %w", err)
			}
		}
		if t.state != nil {
			t.state.TrackChanges()
		}
	}
	return t.openOutputs(ctx)
}

// openOutputs makes the router of every output edge, with the keyer of
// its keyBy for a Hash edge.
func (t *Task) openOutputs(ctx context.Context) error {
	if len(t.stage.Outputs) == 0 {
		return nil
	}
	if len(t.io.Out) != len(t.stage.Outputs) {
		return fmt.Errorf("the stage has %d output edges, the task got senders for %d", len(t.stage.Outputs), len(t.io.Out))
	}
	t.router = &outputs{counted: t.counted}
	for i, e := range t.stage.Outputs {
		out := make([]exchange.Sender, len(t.io.Out[i]))
		for j, snd := range t.io.Out[i] {
			out[j] = timedSender{snd, &t.Metrics, t.env.Now}
		}
		eo := edgeOut{keyIdx: -1}
		part := exchange.RoundRobin
		if e.Partitioning == plan.Broadcast {
			part = exchange.Broadcast
		}
		if k := e.KeyBy; k != nil {
			part = exchange.ByKeyGroup
			ky := &keyer{sel: k.Key, maxParallelism: t.spec.Plan.Job.MaxParallelism}
			if k.Key.Kind == jobspec.KeyFunction {
				var err error
				if ky.selector, err = t.instance(ctx, k, false); err != nil {
					return err
				}
			}
			eo.key, eo.keyIdx = ky, len(t.ops)
			t.ops = append(t.ops, ky)
			t.keyBys = append(t.keyBys, k)
		}
		from := t.spec.Plan.Channel(e, t.spec.Subtask)
		eo.router = exchange.NewRouter(from, out, part, t.spec.Plan.Job.MaxParallelism, t.env.BatchSize)
		t.router.edges = append(t.router.edges, eo)
	}
	return nil
}

// instance instantiates the Wasm function of op.
func (t *Task) instance(ctx context.Context, op *jobspec.Operator, keyed bool) (Operator, error) {
	m, err := t.env.Module(ctx, op.Module)
	if err != nil {
		return nil, err
	}
	job := t.spec.Plan.Job
	params := make(map[string]string, len(job.Params)+6)
	for k, v := range job.Params {
		params[k] = v
	}
	params["floe.function"] = op.Function
	params["floe.operator"] = op.UID
	params["floe.job"] = job.Name
	params["floe.subtask"] = strconv.Itoa(t.spec.Subtask)
	params["floe.parallelism"] = strconv.Itoa(t.stage.Parallelism)
	params["floe.max_parallelism"] = strconv.Itoa(job.MaxParallelism)
	cfg := udf.InstanceConfig{
		Function: op.Function, Function2: op.Function2, Operator: op.UID, Params: params,
		KeyedInput: keyed, CallTimeout: t.env.CallTimeout,
		Logger:        t.env.GuestLogger.With("task", t.name, "operator", op.UID),
		OperatorState: t.lists,
		StatePoint:    t.stateGate.cutIn,
	}
	if b := op.BroadcastInput(); b >= 0 {
		cfg.Broadcast, cfg.BroadcastInput = true, b
	}
	if keyed && t.state != nil {
		cfg.Keyed = t.state
		q, err := t.queue(op.UID)
		if err != nil {
			return nil, err
		}
		cfg.Timers = q
	}
	in, err := m.Instantiate(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("operator %s: %w", op.UID, err)
	}
	return in, nil
}

// runSource pulls batches from the source until it ends.
func (t *Task) runSource(ctx context.Context) error {
	b := exchange.GetBatch()
	defer exchange.PutBatch(b)
	for {
		if err := t.serviceCheckpoints(ctx); err != nil {
			return err
		}
		b.Reset()
		start := t.env.Now()
		throttled, isThrottled := t.source.(connector.Throttled)
		var waited time.Duration
		if isThrottled {
			waited = throttled.Throttled()
		}
		err := t.source.Next(ctx, b, t.env.BatchSize)
		switch {
		case b.Len() == 0:
			t.Metrics.IdleNanos.Add(int64(t.env.Now().Sub(start)))
		case isThrottled:
			// NB: a rate-limited source's wait for its rate is idle time.
			t.Metrics.IdleNanos.Add(int64(throttled.Throttled() - waited))
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if b.Len() > 0 {
			if t.et != nil {
				if serr := t.et.stamp(b, t.env.Now); serr != nil {
					return serr
				}
			}
			if perr := t.process(ctx, b); perr != nil {
				return perr
			}
		}
		if werr := t.sourceWatermark(ctx, b.Len()); werr != nil {
			return werr
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if b.Len() < t.env.BatchSize && t.router != nil {
			// The source is drained for now: ship what is pending rather
			// than hold it until more arrives.
			if err := t.router.Flush(ctx); err != nil {
				return err
			}
		}
	}
}

// runInbox processes the exchange's messages until every sender has ended,
// aligning checkpoint barriers: once a sender's barrier arrives, what it
// sends next is held until every other sender's barrier has arrived too,
// then the task snapshots and processes what it held.
func (t *Task) runInbox(ctx context.Context) error {
	n := t.io.In.Senders()
	ends := exchange.NewEnds(n)
	t.align = align.New[exchange.Message](n)
	t.tracker = eventtime.NewTracker(n)
	pending, _ := t.io.In.(interface{ Pending() int })
	if t.spec.Restore != nil {
		// NB: their senders are not deployed (ckmeta.Restore.EndedInputs).
		for _, from := range t.spec.Restore.EndedInputs {
			if done, err := t.inputEnded(ctx, ends, from); err != nil || done {
				return err
			}
		}
	}
	for {
		if err := t.serviceCheckpoints(ctx); err != nil {
			return err
		}
		if t.susp.rewired { // resumed after a partial rescale: a new inbox
			t.susp.rewired = false
			ends = exchange.NewEnds(t.io.In.Senders())
			pending, _ = t.io.In.(interface{ Pending() int })
		}
		m, ok, err := t.nextTimed(ctx)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if t.align.Hold(m.From, m) {
			continue
		}
		switch {
		case m.End:
			if done, err := t.inputEnded(ctx, ends, m.From); err != nil || done {
				return err
			}
		case m.Barrier > 0:
			if err := t.barrier(ctx, m); err != nil {
				return err
			}
		case m.IsWatermark:
			if wm, adv := t.tracker.Watermark(m.From, m.Watermark, m.Idle); adv {
				if err := t.advanceWatermark(ctx, wm); err != nil {
					return err
				}
			}
		default:
			t.tracker.Active(m.From)
			err = t.processInput(ctx, t.input(m.From), m.Batch)
			exchange.PutBatch(m.Batch)
			if err != nil {
				return err
			}
			if t.router != nil && pending != nil && pending.Pending() == 0 {
				if err := t.router.Flush(ctx); err != nil {
					return err
				}
			}
		}
	}
}

// inputEnded counts channel from as ended, and reports whether every
// channel has.
func (t *Task) inputEnded(ctx context.Context, ends *exchange.Ends, from int) (bool, error) {
	done, err := ends.Mark(from)
	if err != nil {
		return false, err
	}
	if wm, adv := t.tracker.End(from); adv {
		if err := t.advanceWatermark(ctx, wm); err != nil {
			return false, err
		}
	}
	return done, t.aligned(ctx, t.align.End(from))
}

// nextTimed is next, its wait counted as idle time.
func (t *Task) nextTimed(ctx context.Context) (exchange.Message, bool, error) {
	start := t.Metrics.waitBegins(t.env.Now())
	m, ok, err := t.next(ctx)
	t.Metrics.waitEnds(start, t.env.Now())
	return m, ok, err
}

// next returns the next message: first what alignment held, then the
// inbox. ok is false when the task was woken to attend to checkpoints.
func (t *Task) next(ctx context.Context) (exchange.Message, bool, error) {
	if m, ok := t.align.Replay(); ok {
		return m, true, nil
	}
	if w, ok := t.io.In.(interface {
		RecvWake(context.Context, <-chan struct{}) (exchange.Message, bool, error)
	}); ok {
		return w.RecvWake(ctx, t.wake)
	}
	m, err := t.io.In.Recv(ctx)
	return m, err == nil, err
}

// barrier handles a checkpoint barrier from one sender.
func (t *Task) barrier(ctx context.Context, m exchange.Message) error {
	c := t.ckpt
	if c == nil {
		return fmt.Errorf("checkpoint barrier %d in a job without checkpoints", m.Barrier)
	}
	if m.Suspend {
		t.susp.at.Store(m.Barrier)
	}
	out, err := t.align.Barrier(m.From, m.Barrier)
	if err != nil {
		return err
	}
	if out.Began != 0 {
		c.alignStart = t.env.Now()
	}
	return t.aligned(ctx, out)
}

// aligned snapshots once every sender that has not ended has delivered the
// barrier being aligned; next then returns what alignment held.
func (t *Task) aligned(ctx context.Context, out align.Outcome) error {
	if out.Snapshot == 0 {
		return nil
	}
	return t.snapshot(ctx, out.Snapshot, t.ckpt.alignStart)
}

// process passes one batch through the chain and on to the sink or router.
func (t *Task) process(ctx context.Context, in *record.Batch) error {
	return t.processInput(ctx, 0, in)
}

// input returns the input of a two-input head operator by which the
// records of inbox channel ch come: 0 but for a coProcess's second.
func (t *Task) input(ch int) int {
	if t.co == nil {
		return 0
	}
	return t.inputOf[ch]
}

// processInput is process for a batch of the head operator's input (0 or,
// for a coProcess, 1).
func (t *Task) processInput(ctx context.Context, input int, in *record.Batch) error {
	t.Metrics.RecordsIn.Add(int64(in.Len()))
	return t.processFromInput(ctx, 0, input, in)
}

// processFrom passes a batch through the chain from operator first on.
func (t *Task) processFrom(ctx context.Context, first int, in *record.Batch) error {
	return t.processFromInput(ctx, first, 0, in)
}

// processFromInput passes a batch of the given input of operator first
// through the chain from that operator on.
func (t *Task) processFromInput(ctx context.Context, first, input int, in *record.Batch) error {
	cur, err := t.chain(ctx, first, input, in)
	if err != nil {
		return err
	}
	t.Metrics.RecordsOut.Add(int64(cur.Len()))
	if t.sink != nil {
		return t.sink.Write(cur)
	}
	return t.router.Route(ctx, cur)
}

// chain runs the operators from first on over in, a batch of first's
// input input, and returns their output. It holds the state gate, which
// lookups cut into between state operations, but not while the output
// waits for room downstream.
func (t *Task) chain(ctx context.Context, first, input int, in *record.Batch) (*record.Batch, error) {
	t.stateGate.lock()
	defer t.stateGate.unlock()
	defer t.publishStateSizes()
	cur := in
	for i := first; i < t.chained; i++ {
		out := &t.bufs[i%2]
		out.Reset()
		var err error
		if i == first && input != 0 && i == 0 && t.co != nil {
			err = t.co.ProcessInput(ctx, input, cur, out)
		} else {
			err = t.ops[i].Process(ctx, cur, out)
		}
		if err != nil {
			return nil, err
		}
		t.counted(i, cur, out)
		if err := t.drainSide(ctx, i); err != nil {
			return nil, err
		}
		cur = out
	}
	return cur, nil
}

// close releases everything the task opened. When the task succeeded, the
// sink and state are flushed; otherwise they are only released.
func (t *Task) close(ctx context.Context, ok bool) error {
	cctx := context.WithoutCancel(ctx)
	if t.wakeTimer != nil {
		t.wakeTimer.Stop()
	}
	var errs []error
	for _, op := range t.ops {
		errs = append(errs, op.Close(cctx))
	}
	if t.source != nil {
		errs = append(errs, t.source.Close())
	}
	if t.sink != nil {
		errs = append(errs, t.sink.Close())
	}
	errs = append(errs, t.closeSideSinks(cctx)...)
	t.wg.Wait()
	t.q.mu.Lock()
	kept := t.q.kept
	t.q.mu.Unlock()
	if t.state != nil && !kept {
		t.stateGate.lock()
		errs = append(errs, t.state.Close())
		t.ready.Store(false)
		t.stateGate.unlock()
	}
	if !ok {
		return nil
	}
	return errors.Join(errs...)
}
