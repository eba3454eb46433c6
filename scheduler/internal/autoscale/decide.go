package autoscale

import (
	"fmt"
	"math"
	"time"
)

// Decide decides the parallelism of each vertex of a job at time now.
// samples may hold samples of any age: only those lying wholly inside the
// window (the Stabilization before now, and after lastRescale) count.
// lastRescale is zero if the job was never rescaled. The error is for
// inputs that are not a job (an input that is not an earlier vertex).
func Decide(cfg Config, vertices []Vertex, samples []Sample, cluster Cluster,
	lastRescale, now time.Time) (Decision, error) {
	cfg = cfg.withDefaults()
	d := Decision{At: now}
	var window Window
	var scheduled bool
	if cfg, window, scheduled = cfg.inForce(now); scheduled {
		d.Window = window.String()
	}
	if !cfg.Enabled {
		d.Reason = "no change: autoscaler disabled"
		return d, nil
	}
	if !lastRescale.IsZero() && now.Sub(lastRescale) < cfg.Cooldown {
		d.Reason = fmt.Sprintf("no change: within cooldown (%s since the last rescale, cooldown %s)",
			now.Sub(lastRescale), cfg.Cooldown)
		return d, nil
	}
	from := now.Add(-cfg.Stabilization)
	if lastRescale.After(from) {
		from = lastRescale
	}
	stats := aggregate(samples, from, now)
	if msg := coverage(cfg, vertices, stats); msg != "" {
		d.Reason = "no change: not enough metrics: " + msg
		return d, nil
	}
	required := map[int]float64{}
	ratio := map[int]float64{}
	for _, v := range vertices {
		vd, err := decideVertex(cfg, v, stats, required, ratio)
		if err != nil {
			return Decision{}, err
		}
		required[v.ID], ratio[v.ID] = vd.Required, vd.OutputRatio
		d.Vertices = append(d.Vertices, vd)
	}
	applyLatency(cfg, vertices, &d, jobLag(stats), jobBacklog(vertices, stats))
	capSlots(&d, cluster)
	d.Reason = reason(&d)
	for i := range d.Vertices {
		d.Vertices[i].finite()
	}
	return d, nil
}

// reason sets d.Change and returns the decision's reason.
func reason(d *Decision) string {
	r := "no change: every vertex is at its computed parallelism"
	for _, v := range d.Vertices {
		if v.New != v.Current {
			d.Change = true
			r = "rescale"
		}
	}
	if d.Window != "" {
		r += fmt.Sprintf("; the bounds of the schedule's %s UTC apply", d.Window)
	}
	if d.Lag > 0 {
		r += fmt.Sprintf("; latency: event-time lag %s above maxLag", d.Lag)
	}
	if d.Backlog > 0 {
		r += fmt.Sprintf("; latency: backlog %s records above maxBacklog", num(d.Backlog))
	}
	for _, v := range d.Vertices {
		if v.Skewed() {
			r += fmt.Sprintf("; skew limits vertex %d: %s of its records sit in hot key groups of one subtask, which more parallelism cannot split",
				v.ID, pct(v.HotShare))
		}
	}
	for _, v := range d.Vertices {
		if v.Balanced() {
			r += fmt.Sprintf("; source vertex %d at %d, not the computed %d, to spread its %d splits evenly", v.ID, v.New, v.Computed, v.Splits)
		}
	}
	if d.SlotsMissing > 0 {
		r += fmt.Sprintf("; not enough slots: the computed parallelism needs %d, %d missing", d.SlotsNeeded, d.SlotsMissing)
	}
	return r
}

// coverage returns why the window is not covered, or "".
func coverage(cfg Config, vertices []Vertex, stats map[key]*window) string {
	for _, v := range vertices {
		for s := 0; s < v.Parallelism; s++ {
			w := stats[key{v.ID, s}]
			var got time.Duration
			if w != nil {
				got = w.covered
			}
			// NB: a subtask without a sample is never covered, whatever
			// the slack, which is at most half the window.
			if w == nil || got+min(cfg.Slack, cfg.Stabilization/2) < cfg.Stabilization {
				return fmt.Sprintf("vertex %d subtask %d covers %s of %s", v.ID, s, got, cfg.Stabilization)
			}
		}
	}
	return ""
}

// decideVertex computes one vertex's parallelism before the slot cap.
func decideVertex(cfg Config, v Vertex, stats map[key]*window,
	required, ratio map[int]float64) (VertexDecision, error) {
	vd := VertexDecision{ID: v.ID, Name: v.Name, Current: v.Parallelism}
	load := measure(v, stats)
	vd.Observed, vd.OutputRatio = load.observed, load.ratio
	vd.Busiest, vd.Busy, vd.BackPressure, vd.Idle = load.busiest, load.busy, load.bp, load.idle
	vd.LoadShare, vd.HotShare, vd.TrueRate = load.share, load.hot, load.trueRate
	if v.Source {
		vd.InputRate, vd.Backlog = load.inputRate, load.backlog
		vd.Required = load.inputRate
		if cfg.CatchUp > 0 {
			vd.Required += load.backlog / cfg.CatchUp.Seconds()
		}
	} else {
		if len(v.Inputs) == 0 {
			return vd, fmt.Errorf("autoscale: vertex %d is no source and has no inputs", v.ID)
		}
		for _, in := range v.Inputs {
			r, ok := required[in]
			if !ok {
				return vd, fmt.Errorf("autoscale: input %d of vertex %d is not an earlier vertex", in, v.ID)
			}
			vd.Required += r * ratio[in]
		}
	}
	var note string
	vd.Computed, note = Parallelism(vd.Required, capacityRate(cfg, v, &vd), vd.HotShare, cfg.TargetUtilization, v.Parallelism)
	if note != "" {
		vd.Notes = append(vd.Notes, note)
	}
	vd.New = vd.Computed
	if v.Source && load.splits > 0 {
		vd.Splits = load.splits
	}
	bound(cfg, v, &vd)
	return vd, nil
}

// capacityRate is the true rate the parallelism is computed from: the
// busiest subtask's, unless it runs under the target utilization at no
// more than half the records per second of the window it ran fastest in
// (v.PeakRate), and the true rate of that window is larger.
//
// A subtask's busy time is per-batch and per-wake-up cost plus per-record
// cost. At a light load the first dominates, and more records would not
// add to it, so records per busy second understate what the subtask can
// take (a keyed count on a loaded 2-core machine: 30K–90K at 5K records/s
// a subtask against 200K–800K at 20K–80K). Scaled down on that figure, a
// light load keeps several subtasks it does not need. The busiest
// window's true rate is the least diluted of those measured, and still
// at most what the subtask can take. Half the peak rate, not just under
// it, so that the noise of a steady load does not lower it by its
// luckiest window. The note says when this binds.
func capacityRate(cfg Config, v Vertex, vd *VertexDecision) float64 {
	rate := vd.Observed * vd.LoadShare
	if vd.Busy >= cfg.TargetUtilization || vd.TrueRate <= 0 || v.PeakTrueRate <= vd.TrueRate || 2*rate > v.PeakRate {
		return vd.TrueRate
	}
	vd.Notes = append(vd.Notes, fmt.Sprintf("light load: the busiest subtask is %s busy at %s rec/s, so the true rate %s rec/s measured at %s rec/s is used, not %s",
		pct(vd.Busy), num(rate), num(v.PeakTrueRate), num(v.PeakRate), num(vd.TrueRate)))
	return v.PeakTrueRate
}

// Parallelism is the smallest parallelism at which the busiest subtask runs
// at or under the target utilization u, for a vertex that must process
// required records per second, whose busiest subtask processes trueRate
// records per busy second, and of whose records the share hot sits in key
// groups that cannot be split (current is kept when nothing is measured).
//
// The rule for skew: at parallelism n the busiest subtask is taken to get
// the hot share whole plus an even 1/n of the rest, so its load is
// required × (hot + (1−hot)/n), and n is the smallest with that load ≤
// trueRate × u:
//
//	n = ceil(required × (1−hot) / (trueRate × u − required × hot))
//
// With no skew (hot = 0) this is FLIP-271's ceil(required / (trueRate × u)).
// If the hot share alone is more than one subtask can take at the target
// (required × hot ≥ trueRate × u), no parallelism brings the busiest subtask
// to the target, and fewer subtasks only load it more: n is then
// max(current, ceil(required × (1−hot) / (trueRate × u))) — never down,
// and up only as far as the splittable rest needs — and the note says the
// skew is the limit.
func Parallelism(required, trueRate, hot, u float64, current int) (int, string) {
	switch {
	case required <= 0:
		return 1, "no load: no records to process"
	case trueRate <= 0 || math.IsInf(trueRate, 0) || math.IsNaN(trueRate):
		return current, "no true rate measured: keeping the parallelism"
	}
	capacity := trueRate * u
	if required*hot >= capacity {
		n := max(current, ceil(required*(1-hot)/capacity))
		return n, fmt.Sprintf(skewNote+" %s of the records sit in the busiest subtask's hot key groups,"+
			" %s rec/s where one subtask takes %s at the target; more parallelism does not help it",
			pct(hot), num(required*hot), num(capacity))
	}
	return ceil(required * (1 - hot) / (capacity - required*hot)), ""
}

// skewNote opens the note of a vertex that skew limits.
const skewNote = "skew:"

// ceil rounds up, forgiving the float error of an exact quotient.
func ceil(x float64) int {
	n := int(math.Ceil(x - 1e-9))
	if n < 1 {
		return 1
	}
	return n
}

func num(x float64) string {
	if x >= 1e4 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.4g", x)
}
func pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }
