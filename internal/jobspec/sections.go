package jobspec

import "time"

// The defaults of the optional sections.
const (
	defaultRestartAttempts = 1
	defaultRestartDelay    = time.Second
	defaultCheckpointWait  = 10 * time.Minute
	// minCheckpointTime is the shortest checkpoint interval and timeout.
	minCheckpointTime = 10 * time.Millisecond
)

// restart returns the job's restart strategy, none unless the spec says
// otherwise.
func (b *builder) restart(r *rawRestart) RestartStrategy {
	if r == nil {
		return RestartStrategy{Type: RestartNone}
	}
	rs := RestartStrategy{
		Type: RestartType(b.p.choice("restartStrategy.type", r.Type, "restart strategy", string(RestartNone), string(RestartNone), string(RestartFixedDelay))),
	}
	switch rs.Type {
	case RestartFixedDelay:
		rs.Attempts = int(b.p.integer("restartStrategy.attempts", r.Attempts, defaultRestartAttempts, 1, unbounded))
		rs.Delay = b.p.duration("restartStrategy.delay", r.Delay, defaultRestartDelay, 0)
	case RestartNone:
		b.p.only("restartStrategy.attempts", r.Attempts, "fixedDelay")
		b.p.only("restartStrategy.delay", r.Delay, "fixedDelay")
	}
	return rs
}

// state returns the job's state settings, pebble unless the spec says
// otherwise.
func (b *builder) state(r *rawState) State {
	if r == nil {
		return State{Backend: StatePebble}
	}
	backend := b.p.choice("state.backend", r.Backend, "state backend", string(StatePebble), string(StateMemory), string(StatePebble))
	return State{Backend: StateBackend(backend)}
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
		Retain:        int(b.p.integer("checkpoints.retain", r.Retain, 1, 1, unbounded)),
	}
}
