package autoscale

import (
	"fmt"
	"time"
)

// Counters are one subtask's metrics as a heartbeat reports them:
// counters since the subtask started and shares of the last heartbeat
// interval.
type Counters struct {
	// At is when the scheduler received them.
	At                    time.Time
	RecordsIn, RecordsOut int64
	// BackPressure and Idle are the shares of the last heartbeat interval
	// the subtask spent blocked on its outputs and waiting for input.
	BackPressure, Idle float64
	// Checkpointing is the share of the interval the subtask spent taking
	// snapshots: neither idle nor back-pressured, but not processing
	// records either, so it is left out of busy time.
	Checkpointing float64
	// InputRate, Backlog and GeneratorRate are a source subtask's, as in
	// Sample; zero when unknown.
	InputRate, Backlog, GeneratorRate float64
	// LogLag tells that Backlog is a log's lag (Kafka): records arrive at
	// its end, so when no InputRate is given the arrival rate is what the
	// subtask read plus how much its lag grew between two heartbeats.
	LogLag bool
	// Splits and HasSplits are a source subtask's, as in Sample.
	Splits    int
	HasSplits bool
	// Lag is the subtask's event-time lag at At, zero without a
	// watermark.
	Lag time.Duration
}

// Scaler is the autoscaler of one job between decisions: it turns the
// heartbeats' counters into Samples (the growth of the counters from one
// heartbeat to the next) and decides once per interval. It reads no clock
// and starts no goroutine: times arrive as arguments. It is not safe for
// concurrent use; the scheduler keeps one per job under its lock.
type Scaler struct {
	attempt int
	last    map[key]Counters
	samples []Sample
	next    time.Time
	// lower is, by vertex, since when every decision has asked for a
	// lower parallelism, and the largest it asked for.
	lower map[int]lowering
	// peak is, by vertex, the window whose busiest subtask processed the
	// most records per second, kept across attempts (Vertex.PeakRate).
	peak map[int]peak
	// Latest is the latest decision, nil before the first.
	Latest *Decision
}

type peak struct{ rate, trueRate float64 }

type lowering struct {
	since time.Time
	most  int
}

// Observe records one subtask's counters of attempt. Counters of a newer
// attempt than the one seen so far start afresh (its subtasks are new,
// maybe at another parallelism); those of an older one are ignored, as are
// counters that did not move forward in time or went back.
func (s *Scaler) Observe(attempt, vertex, subtask int, c Counters) {
	switch {
	case attempt < s.attempt:
		return
	case attempt > s.attempt || s.last == nil:
		s.attempt, s.last, s.samples, s.lower = attempt, map[key]Counters{}, nil, nil
	}
	k := key{vertex, subtask}
	prev, seen := s.last[k]
	if seen && !c.At.After(prev.At) {
		return
	}
	s.last[k] = c
	if !seen || c.RecordsIn < prev.RecordsIn || c.RecordsOut < prev.RecordsOut {
		return
	}
	dt, in := c.At.Sub(prev.At), float64(c.RecordsIn-prev.RecordsIn)
	rate := c.InputRate
	if rate == 0 && c.LogLag && prev.LogLag {
		rate = max(0, (in+c.Backlog-prev.Backlog)/dt.Seconds())
	}
	s.samples = append(s.samples, Sample{
		At: c.At, Interval: dt, Vertex: vertex, Subtask: subtask,
		RecordsIn: in, RecordsOut: float64(c.RecordsOut - prev.RecordsOut),
		Busy: max(0, 1-c.BackPressure-c.Idle-c.Checkpointing), BackPressure: c.BackPressure, Idle: c.Idle,
		InputRate: rate, Backlog: c.Backlog, GeneratorRate: c.GeneratorRate, Lag: c.Lag,
		Splits: c.Splits, HasSplits: c.HasSplits,
	})
}

// Samples returns the samples kept: those of the current attempt within
// the last stabilization window of the latest decision.
func (s *Scaler) Samples() []Sample { return s.samples }

// Job is what Tick needs to know of a job besides its samples.
type Job struct {
	Config   Config
	Vertices []Vertex
	Cluster  Cluster
	// LastRescale is when the job was last rescaled, zero if never.
	LastRescale time.Time
	// Interval is the time between two decisions.
	Interval time.Duration
}

// Tick decides for the job if a decision is due at now (the first one is
// due at once; the next Interval later), and reports whether it decided.
// It drops the samples that no later decision can use.
func (s *Scaler) Tick(now time.Time, j Job) (Decision, bool, error) {
	if now.Before(s.next) {
		return Decision{}, false, nil
	}
	s.next = now.Add(j.Interval)
	from := now.Add(-j.Config.withDefaults().Stabilization)
	kept := s.samples[:0]
	for _, x := range s.samples {
		if !x.At.Add(-x.Interval).Before(from) {
			kept = append(kept, x)
		}
	}
	s.samples = kept
	cfg := j.Config
	for _, x := range s.samples {
		cfg.Slack = max(cfg.Slack, 2*x.Interval)
	}
	d, err := Decide(cfg, s.withPeaks(j.Vertices), s.samples, j.Cluster, j.LastRescale, now)
	if err != nil {
		return Decision{}, false, err
	}
	s.remember(d)
	s.holdScaleDown(&d, now, cfg.withDefaults().Stabilization)
	s.Latest = &d
	return d, true, nil
}

// holdScaleDown lets a vertex scale down only once every decision over
// delay (the stabilization) has asked for less, and then to the largest
// parallelism they asked for: ups apply at once, downs wait until the
// lower load has lasted. Decisions that computed nothing (cooldown, not
// enough metrics) neither start nor break a wait.
func (s *Scaler) holdScaleDown(d *Decision, now time.Time, delay time.Duration) {
	if len(d.Vertices) == 0 {
		return
	}
	if s.lower == nil {
		s.lower = map[int]lowering{}
	}
	for i := range d.Vertices {
		v := &d.Vertices[i]
		if v.New >= v.Current {
			delete(s.lower, v.ID)
			continue
		}
		l, ok := s.lower[v.ID]
		if !ok {
			l = lowering{since: now, most: v.New}
		}
		l.most = max(l.most, v.New)
		s.lower[v.ID] = l
		if waited := now.Sub(l.since); waited < delay {
			v.Notes = append(v.Notes, fmt.Sprintf("scale down to %d held: asked for less for %s of %s", v.New, waited, delay))
			v.New = v.Current
			continue
		}
		if l.most != v.New {
			v.Notes = append(v.Notes, fmt.Sprintf("%d raised to %d, the most asked for over %s", v.New, l.most, delay))
			v.New = l.most
		}
	}
	d.Change = false
	d.Reason = reason(d)
}

// withPeaks returns vs with each vertex's PeakRate and PeakTrueRate
// (vs itself when there are none).
func (s *Scaler) withPeaks(vs []Vertex) []Vertex {
	if len(s.peak) == 0 {
		return vs
	}
	out := make([]Vertex, len(vs))
	for i, v := range vs {
		p := s.peak[v.ID]
		v.PeakRate, v.PeakTrueRate = p.rate, p.trueRate
		out[i] = v
	}
	return out
}

// remember keeps, for each vertex of d, the window whose busiest subtask
// processed the most records per second so far.
func (s *Scaler) remember(d Decision) {
	for _, v := range d.Vertices {
		rate := v.Observed * v.LoadShare
		if v.TrueRate <= 0 || rate <= s.peak[v.ID].rate {
			continue
		}
		if s.peak == nil {
			s.peak = map[int]peak{}
		}
		s.peak[v.ID] = peak{rate, v.TrueRate}
	}
}
