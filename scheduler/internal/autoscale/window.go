package autoscale

import "time"

type key struct{ vertex, subtask int }

// window is one subtask's samples in the decision window, summed.
type window struct {
	covered                 time.Duration
	in, out                 float64
	busySec, bpSec, idleSec float64
	// inputRateSec is InputRate × seconds, for a time-weighted mean.
	inputRateSec float64
	// The latest sample's backlog and generator rate.
	latest           time.Time
	backlog, genRate float64
	lag              time.Duration
	splits           int
	hasSplits        bool
}

// aggregate sums the samples lying wholly inside [from, to].
func aggregate(samples []Sample, from, to time.Time) map[key]*window {
	out := map[key]*window{}
	for _, s := range samples {
		if s.At.After(to) || s.At.Add(-s.Interval).Before(from) || s.Interval <= 0 {
			continue
		}
		k := key{s.Vertex, s.Subtask}
		w := out[k]
		if w == nil {
			w = &window{}
			out[k] = w
		}
		sec := s.Interval.Seconds()
		w.covered += s.Interval
		w.in += s.RecordsIn
		w.out += s.RecordsOut
		w.busySec += s.Busy * sec
		w.bpSec += s.BackPressure * sec
		w.idleSec += s.Idle * sec
		w.inputRateSec += s.InputRate * sec
		if !s.At.Before(w.latest) {
			w.latest, w.backlog, w.genRate, w.lag = s.At, s.Backlog, s.GeneratorRate, s.Lag
			w.splits, w.hasSplits = s.Splits, s.HasSplits
		}
	}
	return out
}

// load is a vertex's window, summed over its subtasks.
type load struct {
	observed, ratio                      float64
	busiest                              int
	busy, bp, idle, share, hot, trueRate float64
	inputRate, backlog                   float64
	// splits is the sum of the subtasks' splits, -1 unless every subtask
	// told.
	splits int
}

// measure sums a vertex's subtasks (every one is covered, see coverage).
// A source's input rate is, per subtask, the generator's configured rate if
// set, else the mean reported input rate if any, else the observed rate.
func measure(v Vertex, stats map[key]*window) load {
	var l load
	var in, out float64
	for s := 0; s < v.Parallelism; s++ {
		w := stats[key{v.ID, s}]
		sec := w.covered.Seconds()
		in += w.in
		out += w.out
		l.observed += w.in / sec
		if busy := w.busySec / sec; s == 0 || busy > l.busy {
			l.busiest, l.busy, l.bp, l.idle = s, busy, w.bpSec/sec, w.idleSec/sec
		}
		switch {
		case w.genRate > 0:
			l.inputRate += w.genRate
		case w.inputRateSec > 0:
			l.inputRate += w.inputRateSec / sec
		default:
			l.inputRate += w.in / sec
		}
		l.backlog += w.backlog
		switch {
		case !w.hasSplits || l.splits < 0:
			l.splits = -1
		default:
			l.splits += w.splits
		}
	}
	b := stats[key{v.ID, l.busiest}]
	if in > 0 {
		l.ratio = out / in
		l.share = b.in / in
	}
	if b.busySec > 0 {
		l.trueRate = b.in / b.busySec
	}
	if p := float64(v.Parallelism); p > 1 {
		l.hot = max(0, l.share-(1-l.share)/(p-1))
	}
	return l
}
