package jobspec

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// The defaults of the optional sections.
const (
	defaultRestartAttempts = 1
	defaultRestartDelay    = time.Second
	// The backoffs of exponentialDelay, Flink's defaults.
	defaultInitialBackoff = time.Second
	defaultMaxBackoff     = time.Minute
	defaultResetAfter     = time.Hour
	defaultCheckpointWait = 10 * time.Minute
	// minCheckpointTime is the shortest checkpoint interval and timeout.
	minCheckpointTime = 10 * time.Millisecond
)

// defaultRestart is the restart strategy of a spec that names none:
// exponentialDelay with Flink's backoffs when the job takes checkpoints
// (a restart then resumes from the latest one), else none.
func defaultRestart(checkpoints bool) RestartStrategy {
	if !checkpoints {
		return RestartStrategy{Type: RestartNone, Default: true}
	}
	return RestartStrategy{Type: RestartExponentialDelay, InitialBackoff: defaultInitialBackoff,
		MaxBackoff: defaultMaxBackoff, ResetAfter: defaultResetAfter, Default: true}
}

// restart returns the restart strategy the spec names, or the zero
// strategy when it names none (build fills in the default).
func (b *builder) restart(r *rawRestart) RestartStrategy {
	if r == nil {
		return RestartStrategy{}
	}
	rs := RestartStrategy{
		Type: RestartType(b.p.choice("restartStrategy.type", r.Type, "restart strategy", string(RestartNone),
			string(RestartNone), string(RestartFixedDelay), string(RestartExponentialDelay))),
	}
	if rs.Type != RestartFixedDelay {
		b.p.only("restartStrategy.attempts", r.Attempts, "fixedDelay")
		b.p.only("restartStrategy.delay", r.Delay, "fixedDelay")
	}
	if rs.Type != RestartExponentialDelay {
		b.p.only("restartStrategy.initialBackoff", r.InitialBackoff, "exponentialDelay")
		b.p.only("restartStrategy.maxBackoff", r.MaxBackoff, "exponentialDelay")
		b.p.only("restartStrategy.resetAfter", r.ResetAfter, "exponentialDelay")
	}
	switch rs.Type {
	case RestartFixedDelay:
		rs.Attempts = int(b.p.integer("restartStrategy.attempts", r.Attempts, defaultRestartAttempts, 1, unbounded))
		rs.Delay = b.p.duration("restartStrategy.delay", r.Delay, defaultRestartDelay, 0)
	case RestartExponentialDelay:
		b.exponential(r, &rs)
	}
	return rs
}

// exponential fills in the backoffs of an exponentialDelay strategy. The
// initial backoff must be positive (it is doubled) and at most the
// maximum.
func (b *builder) exponential(r *rawRestart, rs *RestartStrategy) {
	rs.InitialBackoff = b.p.duration("restartStrategy.initialBackoff", r.InitialBackoff, defaultInitialBackoff, time.Millisecond)
	rs.MaxBackoff = b.p.duration("restartStrategy.maxBackoff", r.MaxBackoff, max(defaultMaxBackoff, rs.InitialBackoff), time.Millisecond)
	rs.ResetAfter = b.p.duration("restartStrategy.resetAfter", r.ResetAfter, defaultResetAfter, time.Millisecond)
	if rs.MaxBackoff < rs.InitialBackoff && !b.p.rejected("restartStrategy.maxBackoff") && !b.p.rejected("restartStrategy.initialBackoff") {
		b.p.reject("restartStrategy.maxBackoff", "must be at least initialBackoff (%v), got %v", rs.InitialBackoff, rs.MaxBackoff)
	}
}

// state returns the job's state settings, pebble unless the spec says
// otherwise.
func (b *builder) state(r *rawState) State {
	if r == nil {
		return State{Backend: StatePebble}
	}
	backend := b.p.choice("state.backend", r.Backend, "state backend", string(StatePebble), string(StateMemory), string(StatePebble))
	return State{Backend: StateBackend(backend), OpenToViewers: b.readableBy(r.ReadableBy)}
}

// readableBy returns the states that state.readableBy opens to viewers,
// sorted. It maps a queryable state's name to the least role that may
// read it: viewer, or operator, the default. The spec cannot know which
// states the modules declare queryable, so any name is taken.
func (b *builder) readableBy(raw map[string]Scalar) []string {
	var open []string
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		path := childPath("state.readableBy", name)
		if strings.TrimSpace(name) == "" {
			b.p.reject(path, "a state's name must not be empty")
			continue
		}
		if b.p.choice(path, raw[name], "role", "", "viewer", "operator") == "viewer" {
			open = append(open, name)
		}
	}
	return open
}

// checkpoints returns the job's checkpoint settings, or nil when the spec
// has no checkpoints section. A section must at least set the interval.
func (b *builder) checkpoints(r *rawCheckpoints) *Checkpoints {
	if r == nil {
		return nil
	}
	if !r.Interval.set {
		b.p.reject("checkpoints.interval", "required (a duration such as 10s)")
	}
	return &Checkpoints{
		Interval:      b.p.duration("checkpoints.interval", r.Interval, 0, minCheckpointTime),
		Timeout:       b.p.duration("checkpoints.timeout", r.Timeout, defaultCheckpointWait, minCheckpointTime),
		MinPause:      b.p.duration("checkpoints.minPause", r.MinPause, 0, 0),
		MaxConcurrent: int(b.p.integer("checkpoints.maxConcurrent", r.MaxConcurrent, 1, 1, unbounded)),
		Retain:        int(b.p.integer("checkpoints.retain", r.Retain, DefaultRetain, 1, unbounded)),
		Storage:       b.storage(r.Storage),
	}
}

// storage checks a checkpoint storage URL: file:///path or
// s3://bucket/prefix; empty means the cluster's default.
func (b *builder) storage(s Scalar) string {
	if !s.set {
		return ""
	}
	u, ok := b.p.text("checkpoints.storage", s)
	if !ok {
		return ""
	}
	if !strings.HasPrefix(u, "file:///") && !strings.HasPrefix(u, "s3://") {
		b.p.reject("checkpoints.storage", "must be file:///absolute/path or s3://bucket/prefix, got %q", u)
	}
	return u
}

// DefaultRetain is how many completed checkpoints a job keeps by default.
const DefaultRetain = 3

// WithCheckpointInterval turns checkpoints on at interval d, or changes the
// interval of a job that has them, keeping the spec's other settings.
func (j *Job) WithCheckpointInterval(d time.Duration) error {
	if d < minCheckpointTime {
		return fmt.Errorf("checkpoint interval %s is below the minimum %s", d, minCheckpointTime)
	}
	if j.Checkpoints == nil {
		j.Checkpoints = &Checkpoints{Timeout: defaultCheckpointWait, MaxConcurrent: 1, Retain: DefaultRetain}
	}
	if j.RestartStrategy.Default {
		j.RestartStrategy = defaultRestart(true)
	}
	j.Checkpoints.Interval = d
	return j.checkConnectors()
}
