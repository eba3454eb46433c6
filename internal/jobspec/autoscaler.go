package jobspec

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"
)

// Autoscaler is a job's autoscaling policy (docs/autoscaling.md): the
// scheduler's autoscaler sets each vertex's parallelism so that its
// busiest subtask runs at TargetUtilization. Every field holds its
// effective value, except in a job without an autoscaler: section, which
// has the zero Autoscaler: disabled (WithDefaults fills it in).
type Autoscaler struct {
	// Enabled turns the autoscaler on.
	Enabled bool
	// MinParallelism and MaxParallelism bound every vertex; zero means 1
	// and the job's maxParallelism (its key groups).
	MinParallelism, MaxParallelism int
	// TargetUtilization is the busy share the busiest subtask of each
	// vertex should run at, in (0, 1].
	TargetUtilization float64
	// Stabilization is how long every subtask's metrics must be gathered
	// since the last rescale before a decision; Cooldown how long after a
	// rescale no decision is made.
	Stabilization, Cooldown time.Duration
	// MaxScaleUpFactor and MaxScaleDownFactor bound one rescale to
	// floor(p × up) and ceil(p / down); zero means no bound.
	MaxScaleUpFactor, MaxScaleDownFactor float64
	// CatchUp is the time in which a source's backlog should be worked off
	// on top of its input rate; zero ignores backlogs.
	CatchUp time.Duration
	// Interval is how often the scheduler decides.
	Interval time.Duration
	// MaxLag is the latency policy's bound on the job's event-time lag:
	// while the lag is above it nothing scales down, and the busiest
	// vertex scales up; zero turns the policy off.
	MaxLag time.Duration
	// MaxBacklog is the latency policy's bound on the records waiting at
	// the job's sources (Kafka lag), as MaxLag is on event-time lag; zero
	// turns it off.
	MaxBacklog int64
	// Schedule holds times of day with other bounds: the first window that
	// holds replaces MinParallelism and MaxParallelism with those it sets.
	Schedule []AutoscalerWindow
}

// AutoscalerWindow is a time of day, from From to To after midnight UTC
// (wrapping past midnight when To is not after From), with the bounds
// that apply then; a zero bound keeps the policy's.
type AutoscalerWindow struct {
	From, To                       time.Duration
	MinParallelism, MaxParallelism int
}

type rawTimeWindow struct {
	From           Scalar `yaml:"from"`
	To             Scalar `yaml:"to"`
	MinParallelism Scalar `yaml:"minParallelism"`
	MaxParallelism Scalar `yaml:"maxParallelism"`
}

// window builds one window of a schedule at path.
func (p *problems) window(r rawTimeWindow, path string) AutoscalerWindow {
	at := func(name string) string { return childPath(path, name) }
	w := AutoscalerWindow{From: p.timeOfDay(at("from"), r.From), To: p.timeOfDay(at("to"), r.To),
		MinParallelism: int(p.integer(at("minParallelism"), r.MinParallelism, 0, 1, unbounded)),
		MaxParallelism: int(p.integer(at("maxParallelism"), r.MaxParallelism, 0, 1, unbounded))}
	if w.MinParallelism == 0 && w.MaxParallelism == 0 && !p.rejected(path) {
		p.reject(path, "a window sets minParallelism, maxParallelism or both")
	}
	return w
}

// timeOfDay reads HH:MM at path, a time of day UTC, as the time after
// midnight.
func (p *problems) timeOfDay(path string, s Scalar) time.Duration {
	if !s.set {
		p.reject(path, "required (a time of day UTC such as 08:00)")
		return 0
	}
	t, err := time.Parse("15:04", s.value)
	if err != nil {
		p.reject(path, "must be a time of day UTC such as 08:00 or 23:30, got %q", s.value)
		return 0
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute
}

// The autoscaler's defaults.
const (
	DefaultTargetUtilization  = 0.7
	DefaultStabilization      = time.Minute
	DefaultAutoscalerCooldown = 30 * time.Second
	DefaultAutoscalerInterval = 10 * time.Second
	// minAutoscalerTime bounds the durations below: a decision needs at
	// least a few heartbeats of metrics.
	minAutoscalerTime = time.Second
)

// WithDefaults returns a with the defaults in its zero fields that have
// one (the zero Autoscaler of a spec without the section).
func (a Autoscaler) WithDefaults() Autoscaler {
	if a.TargetUtilization == 0 {
		a.TargetUtilization = DefaultTargetUtilization
	}
	if a.Stabilization == 0 {
		a.Stabilization = DefaultStabilization
	}
	if a.Interval == 0 {
		a.Interval = DefaultAutoscalerInterval
	}
	if a.Cooldown == 0 {
		a.Cooldown = DefaultAutoscalerCooldown
	}
	return a
}

type rawAutoscaler struct {
	Enabled            Scalar          `yaml:"enabled"`
	MinParallelism     Scalar          `yaml:"minParallelism"`
	MaxParallelism     Scalar          `yaml:"maxParallelism"`
	TargetUtilization  Scalar          `yaml:"targetUtilization"`
	Stabilization      Scalar          `yaml:"stabilization"`
	Cooldown           Scalar          `yaml:"cooldown"`
	MaxScaleUpFactor   Scalar          `yaml:"maxScaleUpFactor"`
	MaxScaleDownFactor Scalar          `yaml:"maxScaleDownFactor"`
	CatchUp            Scalar          `yaml:"catchUp"`
	Interval           Scalar          `yaml:"interval"`
	MaxLag             Scalar          `yaml:"maxLag"`
	MaxBacklog         Scalar          `yaml:"maxBacklog"`
	Schedule           []rawTimeWindow `yaml:"schedule"`
}

// autoscaler builds the section at path (nil: absent), checking every
// field; maxPar is the job's key groups, which maxParallelism may not
// exceed (0: not known here).
func (p *problems) autoscaler(r *rawAutoscaler, path string, maxPar int) Autoscaler {
	if r == nil {
		return Autoscaler{}
	}
	var a Autoscaler
	at := func(name string) string { return childPath(path, name) }
	a.Enabled = p.boolean(at("enabled"), r.Enabled, false)
	a.MinParallelism = int(p.integer(at("minParallelism"), r.MinParallelism, 0, 1, unbounded))
	a.MaxParallelism = int(p.integer(at("maxParallelism"), r.MaxParallelism, 0, 1, unbounded))
	a.TargetUtilization = p.between(at("targetUtilization"), r.TargetUtilization, DefaultTargetUtilization, 0, 1)
	a.Stabilization = p.duration(at("stabilization"), r.Stabilization, DefaultStabilization, minAutoscalerTime)
	a.Cooldown = p.duration(at("cooldown"), r.Cooldown, DefaultAutoscalerCooldown, minAutoscalerTime)
	a.MaxScaleUpFactor = p.factor(at("maxScaleUpFactor"), r.MaxScaleUpFactor)
	a.MaxScaleDownFactor = p.factor(at("maxScaleDownFactor"), r.MaxScaleDownFactor)
	a.CatchUp = p.duration(at("catchUp"), r.CatchUp, 0, 0)
	a.Interval = p.duration(at("interval"), r.Interval, DefaultAutoscalerInterval, minAutoscalerTime)
	a.MaxLag = p.duration(at("maxLag"), r.MaxLag, 0, 0)
	a.MaxBacklog = p.integer(at("maxBacklog"), r.MaxBacklog, 0, 0, unbounded)
	for i, w := range r.Schedule {
		a.Schedule = append(a.Schedule, p.window(w, itemPath(at("schedule"), i)))
	}
	if a.MinParallelism > 0 && a.MaxParallelism > 0 && a.MinParallelism > a.MaxParallelism {
		p.reject(at("minParallelism"), "%d is above maxParallelism %d", a.MinParallelism, a.MaxParallelism)
	}
	if maxPar > 0 && a.MaxParallelism > maxPar {
		p.reject(at("maxParallelism"), "%d is above the job's maxParallelism %d (its key groups)", a.MaxParallelism, maxPar)
	}
	return a
}

// between returns the number at path, which must lie in (lo, hi].
func (p *problems) between(path string, s Scalar, def, lo, hi float64) float64 {
	if !s.set {
		return def
	}
	f, err := strconv.ParseFloat(s.value, 64)
	if err != nil || math.IsNaN(f) || f <= lo || f > hi {
		p.reject(path, "must be a number above %g and at most %g, got %q", lo, hi, s.value)
		return def
	}
	return f
}

// factor returns the scale factor at path: a finite number >= 1, or 0
// when absent.
func (p *problems) factor(path string, s Scalar) float64 {
	if !s.set {
		return 0
	}
	f, err := strconv.ParseFloat(s.value, 64)
	if err != nil || f < 1 || math.IsInf(f, 0) || math.IsNaN(f) {
		p.reject(path, "must be a number >= 1, got %q", s.value)
		return 0
	}
	return f
}

// ParseAutoscaler reads an autoscaler: section on its own (a YAML or JSON
// mapping, as PUT /v1/jobs/{id}/autoscaler sends it), checking it as Parse
// checks the section of a spec; maxPar is the job's key groups. Absent
// fields take their defaults.
func ParseAutoscaler(data []byte, maxPar int) (Autoscaler, error) {
	p := newProblems("")
	root := readRoot(data, p)
	if root == nil {
		return Autoscaler{}, p.err()
	}
	shaper{p}.check(root, reflect.TypeFor[rawAutoscaler](), "")
	var raw rawAutoscaler
	if err := root.Decode(&raw); err != nil {
		p.add("", "%v", err)
		return Autoscaler{}, p.err()
	}
	a := p.autoscaler(&raw, "", maxPar)
	if err := p.err(); err != nil {
		return Autoscaler{}, fmt.Errorf("autoscaler: %w", err)
	}
	return a, nil
}
