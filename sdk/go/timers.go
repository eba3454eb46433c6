package floe

// TimeDomain is a timer's clock.
type TimeDomain int32

// The time domains (sdk/ABI.md, "Time and timers").
const (
	EventTime      TimeDomain = 0
	ProcessingTime TimeDomain = 1
)

// Timer is a timer that fired: its clock and timestamp. The key is the
// Context's.
type Timer struct {
	Domain    TimeDomain
	Timestamp int64
}

// timerHandlers holds the OnTimer functions by process function name.
var timerHandlers = map[string]func(ctx *Context, t Timer, out Emitter) error{}

// OnTimer registers fn to handle the timers that the process function named
// function registers. The timers of a coProcess, whichever of its two
// functions registers them, fire into the handler of its first function,
// or of its second when the first has none, as a Flink CoProcessFunction
// has one onTimer. fn runs with the timer's key as the current key, so
// state handles read and write that key's state; records it emits carry the
// timer's timestamp for event-time timers and none for processing-time
// timers.
func OnTimer(function string, fn func(ctx *Context, t Timer, out Emitter) error) {
	if _, dup := timerHandlers[function]; dup {
		panic("floe: OnTimer registered twice for " + function)
	}
	timerHandlers[function] = fn
}

// RegisterEventTimer sets a timer for the current key that fires once the
// watermark reaches ts. Registering the same timer twice keeps one.
func (c *Context) RegisterEventTimer(ts int64) { hostTimerRegister(c.rec, int32(EventTime), ts) }

// DeleteEventTimer removes the current key's event-time timer at ts, if set.
func (c *Context) DeleteEventTimer(ts int64) { hostTimerDelete(c.rec, int32(EventTime), ts) }

// RegisterProcessingTimer sets a timer for the current key that fires once
// processing time reaches ts (ms since the epoch).
func (c *Context) RegisterProcessingTimer(ts int64) {
	hostTimerRegister(c.rec, int32(ProcessingTime), ts)
}

// DeleteProcessingTimer removes the current key's processing-time timer at
// ts, if set.
func (c *Context) DeleteProcessingTimer(ts int64) {
	hostTimerDelete(c.rec, int32(ProcessingTime), ts)
}

// Watermark returns the operator's current event-time watermark, or
// NoTimestamp before the first.
func (c *Context) Watermark() int64 { return hostCurrentWatermark() }

// ProcessingTime returns the host's clock in ms since the epoch.
func (c *Context) ProcessingTime() int64 { return hostProcessingTime() }

// onTimer runs the timer handler of the selected function for the key in
// the input buffer's first keyLen bytes. A two-input operator has one set
// of timers, whichever function registered them: they fire into the
// handler of its first function, or of its second when the first has none.
func (o *operator) onTimer(d TimeDomain, ts int64, keyLen int) int32 {
	fn, ok := timerHandlers[o.name]
	if !ok && o.name2 != "" {
		fn, ok = timerHandlers[o.name2]
	}
	if !ok {
		return failWith(-1, errNoTimerHandler(o.name))
	}
	o.ctx.rec, o.ctx.key, o.ctx.ts = 0, o.in[:keyLen], ts
	if d == ProcessingTime {
		o.ctx.ts = NoTimestamp
	}
	err := callSafely(func() error { return fn(&o.ctx, Timer{Domain: d, Timestamp: ts}, o) })
	o.flush()
	if err != nil {
		return failWith(-1, err)
	}
	return 0
}

type errNoTimerHandler string

func (e errNoTimerHandler) Error() string {
	return "a timer fired but function " + string(e) + " has no OnTimer handler"
}
