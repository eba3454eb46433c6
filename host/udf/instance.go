package udf

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/floe-stream/floe/host/internal/wasmbin"
	"github.com/floe-stream/floe/host/record"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// InstanceConfig configures one operator instance.
type InstanceConfig struct {
	// Function is the registered function the operator runs.
	Function string
	// Function2 is, for a two-input operator (a coProcess), the function
	// it runs on the records of its second input, through floe_process2;
	// floe_open gets it as floe.function2. Empty for every other operator.
	Function2 string
	// Broadcast tells that the input BroadcastInput (0 or 1) of a
	// two-input operator is a broadcast input: its function may write
	// broadcast state and has no key (broadcast.go).
	Broadcast      bool
	BroadcastInput int
	// Operator is the operator's uid; state namespaces start with it.
	Operator string
	// Params are handed to floe_open, with the floe.* entries.
	Params map[string]string
	// Keyed is where keyed state goes; nil for an operator without state.
	Keyed Keyed
	// Keyed tells that the operator runs after a keyBy.
	KeyedInput bool
	// Timers keeps the timers of a keyed operator; nil for an operator
	// without keyed input, whose timer calls trap.
	Timers Timers
	// OperatorState holds the operator list states (ABI kinds 4 and 5); nil
	// gives the instance lists of its own, in memory.
	OperatorState OperatorState
	// CallTimeout bounds each call into the guest; zero means
	// DefaultCallTimeout.
	CallTimeout time.Duration
	// Logger receives the guest's log calls; nil discards them.
	Logger *slog.Logger
	// Now is the processing-time clock; nil means time.Now.
	Now func() time.Time
	// StatePoint, when set, is called at points in a Process call where
	// others may use the keyed state: before each of the guest's keyed
	// state operations, and each time its fuel runs out. Between state
	// operations every key holds what its last operation left. (Not in
	// the other calls, whose callers may hold state memory across them.)
	StatePoint func()
}

// Instance is one running copy of a module: one operator subtask. It is not
// safe for concurrent use.
type Instance struct {
	m         *Module
	cfg       InstanceConfig
	mod       api.Module
	mem       api.Memory
	alloc     api.Function
	open      api.Function
	process   api.Function
	process2  api.Function // nil when the module exports no floe_process2
	close     api.Function
	onTimer   api.Function // nil when the module exports no floe_on_timer
	window    api.Function // nil when the module exports no floe_window
	functions api.Function // nil when the module exports no floe_functions
	stack     []uint64
	stderr    *head

	buf, bufCap uint32 // the guest's input buffer

	keyed   bool
	states  []stateBinding
	outputs []string // side output names; port = index + 1

	watermark int64
	timerRec  record.Batch // the one-record batch a timer call scopes state by

	// Per call.
	cur     *record.Batch
	out     *record.Batch
	side    []record.Batch
	scratch []byte
	failed  bool
	failMsg string
	failRec int32
	dead    error
	// emitted counts the bytes the running call has emitted, against
	// limits.callOutput.
	emitted int64

	logs logLimiter

	// deadline is when the running call overruns its time; timedOut says
	// that yield stopped it for that.
	deadline time.Time
	timedOut bool
	// statePoints says to call cfg.StatePoint in the running call.
	statePoints bool
	// onBroadcast says that the running call is the broadcast input's
	// function, which may write broadcast state but not use keyed state.
	onBroadcast bool

	stats CallStats
}

// CallStats are an instance's counters of its calls into the guest. They
// are updated once per call (a batch, a timer, a window operation) and once
// per fuel yield, never per record, and are safe to read while the
// instance runs.
type CallStats struct {
	// Calls counts the calls into the guest's exports after
	// instantiation.
	Calls atomic.Int64
	// CallNanos is the wall time spent in those calls, host functions
	// included.
	CallNanos atomic.Int64
	// Yields counts the times the guest ran out of fuel and called back
	// to the host to be checked and refuelled.
	Yields atomic.Int64
	// MemoryBytes is the size of the guest's linear memory after its last
	// call: a multiple of the 64 KiB Wasm page.
	MemoryBytes atomic.Int64
	// BatchBytes counts the bytes of the batches handed to floe_process,
	// as the ABI lays them out: 16 bytes per record, its key and value.
	BatchBytes atomic.Int64
}

// Stats returns the instance's call counters.
func (in *Instance) Stats() *CallStats { return &in.stats }

// Instantiate creates an instance of the module and opens its operator.
func (m *Module) Instantiate(ctx context.Context, cfg InstanceConfig) (*Instance, error) {
	if cfg.CallTimeout == 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.OperatorState == nil {
		cfg.OperatorState = NewOperatorLists()
	}
	in, err := m.instantiate(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := in.openOperator(ctx); err != nil {
		in.mod.Close(context.Background())
		return nil, err
	}
	return in, nil
}

// instantiate makes an instance of m and runs its start function, without
// opening an operator.
func (m *Module) instantiate(ctx context.Context, cfg InstanceConfig) (*Instance, error) {
	in := &Instance{m: m, cfg: cfg, keyed: cfg.KeyedInput, stderr: &head{max: 1024}, stack: make([]uint64, 4), watermark: record.NoTimestamp}
	in.logs = newLogLimiter(m.e.limits.logLines, m.e.limits.logBytes, cfg.Now())
	mc := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions("_initialize").
		WithStdout(guestStdout{in}).
		WithStderr(in.stderr).
		WithSysWalltime().
		WithSysNanotime().
		WithRandSource(rand.Reader)
	in.startCall()
	mod, err := m.e.rt.InstantiateModule(&callContext{ctx, in}, m.compiled, mc)
	if err != nil {
		return nil, in.wrap("_initialize", -1, fmt.Errorf("instantiating: %w", err), ctx.Err())
	}
	in.mod, in.mem = mod, mod.Memory()
	if in.mem != nil {
		in.stats.MemoryBytes.Store(int64(in.mem.Size()))
	}
	in.alloc = mod.ExportedFunction("floe_alloc")
	in.open = mod.ExportedFunction("floe_open")
	in.process = mod.ExportedFunction("floe_process")
	in.process2 = mod.ExportedFunction("floe_process2")
	in.close = mod.ExportedFunction("floe_close")
	in.onTimer = mod.ExportedFunction("floe_on_timer")
	in.window = mod.ExportedFunction("floe_window")
	in.functions = mod.ExportedFunction("floe_functions")
	return in, nil
}

// openOperator hands the parameters to floe_open.
func (in *Instance) openOperator(ctx context.Context) error {
	if in.cfg.Function2 != "" && in.process2 == nil {
		return in.wrap("floe_open", -1, errors.New("the module exports no floe_process2, so it cannot run a two-input operator (coProcess): rebuild it with an SDK that has them"), nil)
	}
	params := encodeParams(in.cfg.Params, in.cfg.Function, in.cfg.Function2)
	dst, err := in.buffer(ctx, len(params))
	if err != nil {
		return err
	}
	copy(dst, params)
	return in.call(ctx, in.open, "floe_open", -1, uint64(len(params)))
}

// encodeParams lays out the parameter block, sorted by key, with
// floe.function set to function and, when function2 is set, floe.function2
// to function2.
func encodeParams(p map[string]string, function, function2 string) []byte {
	set := map[string]string{"floe.function": function}
	if function2 != "" {
		set["floe.function2"] = function2
	}
	keys := make([]string, 0, len(p)+2)
	for k := range p {
		if _, ok := set[k]; !ok {
			keys = append(keys, k)
		}
	}
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(keys)))
	for _, k := range keys {
		v, ok := set[k]
		if !ok {
			v = p[k]
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(k)))
		b = append(b, k...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	return b
}

// buffer returns a view of the guest's input buffer with room for n bytes,
// asking the guest for a larger one when needed.
func (in *Instance) buffer(ctx context.Context, n int) ([]byte, error) {
	if uint32(n) > in.bufCap || in.bufCap == 0 {
		size := uint32(n + n/4 + 1024)
		if err := in.call(ctx, in.alloc, "floe_alloc", -1, uint64(size)); err != nil {
			return nil, err
		}
		in.buf, in.bufCap = uint32(in.stack[0]), size
	}
	b, ok := in.mem.Read(in.buf, uint32(n))
	if !ok {
		return nil, in.wrap("floe_alloc", -1, fmt.Errorf("returned a buffer outside its memory"), nil)
	}
	return b, nil
}

// Process runs the operator over a batch, appending its main output to out.
// Records emitted to side outputs are collected per port (SideOutputs).
func (in *Instance) Process(ctx context.Context, batch, out *record.Batch) error {
	return in.processInput(ctx, 0, batch, out)
}

// ProcessInput is Process for a batch of a two-input operator's input
// (0 or 1): the records of input 1 go to the second function, through
// floe_process2. Both functions share the instance, so its keyed state,
// timers and side outputs.
func (in *Instance) ProcessInput(ctx context.Context, input int, batch, out *record.Batch) error {
	if input != 0 && (input != 1 || in.cfg.Function2 == "") {
		return in.wrap("floe_process", -1, fmt.Errorf("a batch of input %d, but the operator has no function for it", input), nil)
	}
	return in.processInput(ctx, input, batch, out)
}

// processInput runs floe_process (input 0) or floe_process2 (input 1).
func (in *Instance) processInput(ctx context.Context, input int, batch, out *record.Batch) error {
	export, f := "floe_process", in.process
	if input == 1 {
		export, f = "floe_process2", in.process2
	}
	if len(batch.Records) == 0 {
		return nil
	}
	size := 0
	for i := range batch.Records {
		r := &batch.Records[i]
		if n := int64(len(r.Key) + len(r.Value)); n > in.m.e.limits.record {
			in.cur = batch
			err := in.wrap(export, i, fmt.Errorf("%w: an input record of %d bytes is over the cap of %d bytes per record (--max-record-size)",
				ErrRecordTooLarge, n, in.m.e.limits.record), nil)
			in.cur = nil
			return err
		}
		size += 16 + len(r.Key) + len(r.Value)
	}
	dst, err := in.buffer(ctx, size)
	if err != nil {
		return err
	}
	encodeBatch(dst, batch)
	in.stats.BatchBytes.Add(int64(size))
	in.cur, in.out = batch, out
	in.statePoints = in.cfg.StatePoint != nil
	in.onBroadcast = in.cfg.Broadcast && input == in.cfg.BroadcastInput
	err = in.call(ctx, f, export, -1, uint64(size), uint64(len(batch.Records)))
	in.cur, in.out, in.statePoints, in.onBroadcast = nil, nil, false, false
	return err
}

// encodeBatch lays out batch's records in dst (sdk/ABI.md, "Input batch").
func encodeBatch(dst []byte, batch *record.Batch) {
	off := 0
	for i := range batch.Records {
		r := &batch.Records[i]
		binary.LittleEndian.PutUint32(dst[off:], uint32(len(r.Key)))
		binary.LittleEndian.PutUint32(dst[off+4:], uint32(len(r.Value)))
		binary.LittleEndian.PutUint64(dst[off+8:], uint64(r.Timestamp))
		off += 16
		off += copy(dst[off:], r.Key)
		off += copy(dst[off:], r.Value)
	}
}

// SetWatermark sets what current_watermark answers: the operator's event
// time, as the task computes it from its inputs.
func (in *Instance) SetWatermark(ts int64) { in.watermark = ts }

// HasTimerHandler tells whether the module exports floe_on_timer.
func (in *Instance) HasTimerHandler() bool { return in.onTimer != nil }

// FireTimer calls floe_on_timer for a timer of domain d at ts for key (in
// key group kg), appending the main output to out. The caller has removed
// the timer already, so the guest may register it again.
func (in *Instance) FireTimer(ctx context.Context, d TimeDomain, ts int64, kg uint16, key []byte, out *record.Batch) error {
	if in.onTimer == nil {
		return in.wrap("floe_on_timer", -1, errors.New("a timer fired but the module exports no floe_on_timer"), nil)
	}
	dst, err := in.buffer(ctx, len(key))
	if err != nil {
		return err
	}
	copy(dst, key)
	in.timerRec.Reset()
	in.timerRec.AppendKeyed(key, nil, ts, kg)
	in.cur, in.out = &in.timerRec, out
	err = in.call(ctx, in.onTimer, "floe_on_timer", -1, uint64(uint32(d)), uint64(ts), uint64(len(key)))
	in.cur, in.out = nil, nil
	return err
}

// WindowOp is what a floe_window call asks of a window function.
type WindowOp int32

// The window operations of ABI v1 (sdk/ABI.md, "Window functions").
const (
	WindowAdd     WindowOp = 0
	WindowMerge   WindowOp = 1
	WindowResult  WindowOp = 2
	WindowProcess WindowOp = 3
)

// Window calls floe_window with op and payload, a sequence of groups laid
// out as the ABI says, appending what the guest emits on port 0 to out.
func (in *Instance) Window(ctx context.Context, op WindowOp, payload []byte, out *record.Batch) error {
	if in.window == nil {
		return in.wrap("floe_window", -1, errors.New("the module exports no floe_window: it has no window functions"), nil)
	}
	dst, err := in.buffer(ctx, len(payload))
	if err != nil {
		return err
	}
	copy(dst, payload)
	in.out = out
	err = in.call(ctx, in.window, "floe_window", -1, uint64(uint32(op)), uint64(len(payload)))
	in.out = nil
	return err
}

// Close closes the operator (floe_close) and the instance.
func (in *Instance) Close(ctx context.Context) error {
	var err error
	if in.dead == nil {
		err = in.call(ctx, in.close, "floe_close", -1)
	}
	in.reportDropped(in.cfg.Now(), true)
	return errors.Join(err, in.mod.Close(context.Background()))
}

// States returns the states the operator declared and can use: none for
// an operator without keyed input (modules declare all their states
// whichever function runs).
func (in *Instance) States() []StateInfo {
	if in.cfg.Keyed == nil || !in.keyed {
		return nil
	}
	out := make([]StateInfo, len(in.states))
	for i, s := range in.states {
		out[i] = s.info
	}
	return out
}

// SideOutputs returns the side outputs' names, by port - 1.
func (in *Instance) SideOutputs() []string { return in.outputs }

// SideOutput returns the batch of records emitted to side output port
// (1-based) since the caller last reset it.
func (in *Instance) SideOutput(port int) *record.Batch { return &in.side[port-1] }

// call invokes f with params and turns every way it can fail into an error.
// The results are left in in.stack.
func (in *Instance) call(ctx context.Context, f api.Function, export string, rec int, params ...uint64) error {
	if in.dead != nil {
		return in.dead
	}
	in.failed = false
	in.emitted = 0
	in.stderr.reset()
	copy(in.stack, params)
	in.startCall()
	start := time.Now()
	err := f.CallWithStack(&callContext{ctx, in}, in.stack)
	in.stats.CallNanos.Add(int64(time.Since(start)))
	in.stats.Calls.Add(1)
	if in.mem != nil {
		in.stats.MemoryBytes.Store(int64(in.mem.Size()))
	}
	if err == nil && in.stack[0] != 0 && export != "floe_alloc" && export != "floe_functions" {
		err = errors.New(in.failMessage())
		rec = int(in.failRec)
	} else if err != nil && in.failed && !in.timedOut {
		// A guest that reports its error with fail and then traps (an
		// AssemblyScript throw, a Rust panic) still names its record.
		err = errors.New(in.failMessage())
		rec = int(in.failRec)
	}
	if err == nil {
		return nil
	}
	err = in.wrap(export, rec, err, ctx.Err())
	in.dead = err
	return err
}

// startCall starts the clock of a call into the guest.
func (in *Instance) startCall() {
	in.timedOut = false
	if in.m.e.interruptible {
		in.deadline = time.Now().Add(in.cfg.CallTimeout)
	}
}

// yield is the instrumented guest's call out (see host/internal/wasmbin):
// it stops a call that was cancelled or overran its time, and otherwise
// hands the guest the fuel for its next stretch.
func (in *Instance) yield(ctx context.Context) uint32 {
	in.stats.Yields.Add(1)
	if err := ctx.Err(); err != nil {
		panic(err)
	}
	if in.statePoints {
		in.cfg.StatePoint()
	}
	if time.Now().After(in.deadline) {
		in.timedOut = true
		panic(ErrTimeout)
	}
	return wasmbin.DefaultFuel
}

func (in *Instance) failMessage() string {
	if in.failed {
		return in.failMsg
	}
	return "failed without a message"
}

// wrap turns err from a call into a *UDFError, or into the caller's context
// error when the caller cancelled (parentErr).
func (in *Instance) wrap(export string, rec int, err, parentErr error) error {
	if parentErr != nil {
		return parentErr
	}
	if in.timedOut {
		err = fmt.Errorf("%w (after %s)", ErrTimeout, in.cfg.CallTimeout)
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) && exit.ExitCode() != 0 && !errors.Is(err, ErrTimeout) {
		err = fmt.Errorf("guest exited with code %d", exit.ExitCode())
	}
	if strings.Contains(in.stderr.String(), "out of memory") {
		err = fmt.Errorf("out of memory: the instance reached its memory cap of %d MiB: %w", in.m.e.maxMemory>>20, err)
	}
	function := in.cfg.Function
	if export == "floe_process2" {
		function = in.cfg.Function2
	}
	ue := &UDFError{Module: in.m.name, Function: function, Operator: in.cfg.Operator, Export: export, Record: rec, Err: err, Stderr: in.stderr.String()}
	if in.cur != nil && rec >= 0 && rec < len(in.cur.Records) {
		ue.Value, ue.Size = prefix(in.cur.Records[rec].Value)
		ue.Key, ue.KeySize = prefix(in.cur.Records[rec].Key)
	}
	return ue
}

// recordOverhead is what the host spends on an output record besides its
// value; the cap on output per call counts it.
const recordOverhead = int64(unsafe.Sizeof(record.Record{}))

// emit routes one output record of the running call, stopping the call
// when the record or the call's output is over its cap.
func (in *Instance) emit(port uint32, value []byte, ts int64) {
	lim := &in.m.e.limits
	if n := int64(len(value)); n > lim.record {
		panic(fmt.Errorf("%w: emitted a record of %d bytes, over the cap of %d bytes per record (--max-record-size)", ErrRecordTooLarge, n, lim.record))
	}
	in.emitted += recordOverhead + int64(len(value))
	if in.emitted > lim.callOutput {
		panic(fmt.Errorf("%w: emitted more than %d bytes in one call, the cap per call (--max-call-output; %d bytes counted per record besides its value), and was stopped", ErrOutputTooLarge, lim.callOutput, recordOverhead))
	}
	if port == 0 {
		if in.out == nil {
			trap("emit outside floe_process")
		}
		in.out.Append(nil, value, ts)
		return
	}
	if int(port) > len(in.side) {
		trap("emit to undeclared output port %d", port)
	}
	in.side[port-1].Append(nil, value, ts)
}

func (in *Instance) declareOutput(name string) int {
	if i := slices.Index(in.outputs, name); i >= 0 {
		return i + 1
	}
	in.outputs = append(in.outputs, name)
	in.side = append(in.side, record.Batch{})
	return len(in.outputs)
}

// declareState binds a state name to its store.
func (in *Instance) declareState(kind StateKind, name string, flags int32) (int, error) {
	if name == "" {
		return 0, errors.New("empty state name")
	}
	for i, s := range in.states {
		if s.info.Name == name {
			if s.info.Kind != kind {
				return 0, fmt.Errorf("declared as %s state and as %s state", s.info.Kind, kind)
			}
			return i, nil
		}
	}
	b := stateBinding{info: StateInfo{
		Name: name, Namespace: in.cfg.Operator + "/" + name, Kind: kind,
		Type: ValueType(flags >> 8), Queryable: flags&1 != 0,
	}}
	var err error
	if kind == KindBroadcastMap {
		if b.bc, err = in.cfg.OperatorState.BroadcastMap(b.info.Namespace); err != nil {
			return 0, err
		}
		in.states = append(in.states, b)
		return len(in.states) - 1, nil
	}
	if kind == KindEvenSplitList || kind == KindUnionList {
		if b.op, err = in.cfg.OperatorState.List(b.info.Namespace, kind); err != nil {
			return 0, err
		}
		in.states = append(in.states, b)
		return len(in.states) - 1, nil
	}
	if in.cfg.Keyed == nil {
		// A module declares all its states whichever function runs; a
		// non-keyed operator may declare them but traps if it uses them.
		if kind < KindValue || kind > KindMap {
			return 0, fmt.Errorf("state kind %d is not supported by this host", kind)
		}
		in.states = append(in.states, b)
		return len(in.states) - 1, nil
	}
	switch kind {
	case KindValue:
		b.value, err = in.cfg.Keyed.Value(b.info.Namespace)
	case KindList:
		b.list, err = in.cfg.Keyed.List(b.info.Namespace)
	case KindMap:
		b.mp, err = in.cfg.Keyed.Map(b.info.Namespace)
	default:
		return 0, fmt.Errorf("state kind %d is not supported by this host", kind)
	}
	if err != nil {
		return 0, err
	}
	in.states = append(in.states, b)
	return len(in.states) - 1, nil
}

// logf logs a line the guest hands the host (a view of its memory), under
// the instance's log rate limit.
func (in *Instance) logf(level int32, b []byte) {
	if in.cfg.Logger == nil {
		return
	}
	now := in.cfg.Now()
	in.reportDropped(now, false)
	if !in.logs.allow(now, min(len(b), MaxMessage)) {
		return
	}
	msg := message(b)
	lv := slog.LevelInfo
	switch level {
	case 0:
		lv = slog.LevelDebug
	case 2:
		lv = slog.LevelWarn
	case 3:
		lv = slog.LevelError
	}
	in.cfg.Logger.Log(context.Background(), lv, msg, "module", in.m.name, "function", in.cfg.Function)
}

func (in *Instance) now() time.Time { return in.cfg.Now() }
