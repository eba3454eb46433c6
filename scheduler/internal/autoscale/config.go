package autoscale

import "time"

// Config is a job's autoscaling policy.
type Config struct {
	// Enabled turns the autoscaler on for the job; a disabled policy
	// always decides no change.
	Enabled bool
	// MinParallelism and MaxParallelism bound every vertex's parallelism;
	// zero means no bound (1 and the vertex's key groups).
	MinParallelism, MaxParallelism int
	// TargetUtilization is the busy share the busiest subtask of each
	// vertex should run at, in (0, 1]; zero means 0.7.
	TargetUtilization float64
	// Stabilization is how much time the samples of every subtask must
	// cover, since the last rescale, before a decision is made; zero means
	// one minute.
	Stabilization time.Duration
	// Cooldown is how long after a rescale no decision is made; zero means
	// 30 seconds.
	Cooldown time.Duration
	// MaxScaleUpFactor bounds a scale up to floor(p × factor); zero means
	// no bound. MaxScaleDownFactor bounds a scale down to
	// ceil(p / factor); zero means no bound. Both are at least 1.
	MaxScaleUpFactor, MaxScaleDownFactor float64
	// CatchUp is the time in which the sources' backlog should be worked
	// off, on top of their input rate; zero ignores the backlog.
	CatchUp time.Duration
	// Schedule holds times of day with other bounds (schedule.go): the
	// first window that holds at the decision's time replaces
	// MinParallelism and MaxParallelism with those it sets.
	Schedule []Window
	// MaxLag is the latency policy's bound on the job's event-time lag
	// (latency.go); zero turns the policy off.
	MaxLag time.Duration
	// MaxBacklog is the latency policy's bound on the records waiting at
	// the sources (the sum of their latest backlogs); zero turns it off.
	MaxBacklog float64
	// Slack is how much a subtask's samples may fall short of covering
	// Stabilization: samples arrive with every heartbeat, and those that
	// straddle the window's edges do not count, so a Scaler fed by
	// heartbeats sets it to two heartbeat intervals. Zero asks for full
	// coverage. At most half of Stabilization counts, and a subtask
	// without any sample is never covered.
	Slack time.Duration
}

// Defaults of Config's zero fields.
const (
	DefaultTargetUtilization = 0.7
	DefaultStabilization     = time.Minute
	DefaultCooldown          = 30 * time.Second
)

func (c Config) withDefaults() Config {
	if c.TargetUtilization == 0 {
		c.TargetUtilization = DefaultTargetUtilization
	}
	if c.Stabilization == 0 {
		c.Stabilization = DefaultStabilization
	}
	if c.Cooldown == 0 {
		c.Cooldown = DefaultCooldown
	}
	return c
}
