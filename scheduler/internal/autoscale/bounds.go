package autoscale

import (
	"fmt"
	"math"
)

// bound applies, in order, the scale factors, a source's splits (when
// known), the policy's min and max and the vertex's key groups to vd.New,
// noting each bound that changes it.
func bound(cfg Config, v Vertex, vd *VertexDecision) {
	p := float64(v.Parallelism)
	if cfg.MaxScaleUpFactor >= 1 {
		clampMax(vd, int(math.Floor(p*cfg.MaxScaleUpFactor+1e-9)), "maxScaleUpFactor")
	}
	if cfg.MaxScaleDownFactor >= 1 {
		clampMin(vd, int(math.Ceil(p/cfg.MaxScaleDownFactor-1e-9)), "maxScaleDownFactor")
	}
	if vd.Splits > 0 {
		// NB: a subtask beyond the splits reads nothing; the policy's min
		// still wins below.
		clampMax(vd, vd.Splits, "the source's splits (Kafka partitions, a followed file)")
	}
	if cfg.MinParallelism > 0 {
		clampMin(vd, cfg.MinParallelism, "minParallelism")
	}
	if cfg.MaxParallelism > 0 {
		clampMax(vd, cfg.MaxParallelism, "maxParallelism")
	}
	if v.KeyGroups > 0 {
		clampMax(vd, v.KeyGroups, "key groups")
	}
	clampMin(vd, 1, "at least one subtask")
	if vd.Splits > 0 {
		balance(cfg, v, vd)
	}
}

// splitsNote opens the note of a source whose parallelism was moved to
// spread its splits evenly.
const splitsNote = "splits:"

// balance moves a source's parallelism n to one that spreads its S splits
// evenly, when n does not divide them: its busiest subtask reads
// ceil(S/n) splits, so the rest of the subtasks go to waste as far as the
// busiest one is concerned (6 partitions at 4: two subtasks read two, the
// busiest as at 3). It goes up to the smallest divisor of S above n, which
// brings the busiest subtask to S/d splits, if the bounds allow it (the
// scale-up factor, maxParallelism, the key groups); else down to the
// fewest subtasks at which the busiest reads no more than at n,
// ceil(S / ceil(S/n)), if the scale-down factor and minParallelism allow
// it. The note says which and why. Flink's autoscaler rounds a source's
// parallelism to a divisor of its partitions the same way.
func balance(cfg Config, v Vertex, vd *VertexDecision) {
	n, splits := vd.New, vd.Splits
	if n >= splits || splits%n == 0 {
		return
	}
	lo, hi := bounds(cfg, v, splits)
	if n < lo || n > hi {
		return // NB: the bounds conflict (minParallelism above the splits); leave them be.
	}
	per := (splits + n - 1) / n
	for d := n + 1; d <= hi; d++ {
		if splits%d == 0 {
			vd.Notes = append(vd.Notes, fmt.Sprintf("%s %d raised to %d, a divisor of the source's %d splits: at %d its busiest subtask would read %d of them, at %d it reads %d",
				splitsNote, n, d, splits, n, per, d, splits/d))
			vd.New = d
			return
		}
	}
	if fewest := fewestAsBusy(n, splits); fewest < n && fewest >= lo {
		even := ""
		if splits%fewest == 0 {
			even = ", a divisor of them"
		}
		vd.Notes = append(vd.Notes, fmt.Sprintf("%s %d lowered to %d%s: with the source's %d splits its busiest subtask reads %d at either, and no divisor above %d is within the bounds",
			splitsNote, n, fewest, even, splits, per, n))
		vd.New = fewest
	}
}

// bounds returns the least and most parallelism the policy allows v with
// splits, as bound applies them.
func bounds(cfg Config, v Vertex, splits int) (lo, hi int) {
	p := float64(v.Parallelism)
	lo, hi = max(1, cfg.MinParallelism), splits
	if cfg.MaxScaleUpFactor >= 1 {
		hi = min(hi, int(math.Floor(p*cfg.MaxScaleUpFactor+1e-9)))
	}
	if cfg.MaxScaleDownFactor >= 1 {
		lo = max(lo, int(math.Ceil(p/cfg.MaxScaleDownFactor-1e-9)))
	}
	if cfg.MaxParallelism > 0 {
		hi = min(hi, cfg.MaxParallelism)
	}
	if v.KeyGroups > 0 {
		hi = min(hi, v.KeyGroups)
	}
	return lo, hi
}

func clampMax(vd *VertexDecision, max int, by string) {
	if vd.New > max {
		vd.Notes = append(vd.Notes, fmt.Sprintf("%d capped to %d by %s", vd.New, max, by))
		vd.New = max
	}
}

func clampMin(vd *VertexDecision, min int, by string) {
	if vd.New < min {
		vd.Notes = append(vd.Notes, fmt.Sprintf("%d raised to %d by %s", vd.New, min, by))
		vd.New = min
	}
}

// capSlots caps every vertex at the slots the job can have: a job holds as
// many slots as its largest vertex has subtasks (a slot runs one subtask of
// each vertex), and can grow by the cluster's free slots.
func capSlots(d *Decision, c Cluster) {
	held, needed := 0, 0
	for _, v := range d.Vertices {
		held, needed = max(held, v.Current), max(needed, v.New)
	}
	d.SlotsNeeded = needed
	avail := held + c.FreeSlots
	if needed <= avail {
		return
	}
	d.SlotsMissing = needed - avail
	for i := range d.Vertices {
		vd := &d.Vertices[i]
		capped := vd.New > avail
		clampMax(vd, avail, fmt.Sprintf("slots (the job holds %d, %d free)", held, c.FreeSlots))
		if capped && vd.Splits > 0 {
			evenDown(vd)
		}
	}
}

// evenDown lowers a source's parallelism n to the fewest subtasks at which
// its busiest one reads no more splits than at n, ceil(S / ceil(S/n)).
func evenDown(vd *VertexDecision) {
	n, splits := vd.New, vd.Splits
	if n >= splits || splits%n == 0 {
		return
	}
	if fewest := fewestAsBusy(n, splits); fewest < n {
		vd.Notes = append(vd.Notes, fmt.Sprintf("%s %d lowered to %d: with the source's %d splits its busiest subtask reads %d at either",
			splitsNote, n, fewest, splits, (splits+n-1)/n))
		vd.New = fewest
	}
}

// fewestAsBusy is the fewest subtasks at which the busiest of a source's
// splits reads no more of them than at n: ceil(splits / ceil(splits/n)).
func fewestAsBusy(n, splits int) int {
	per := (splits + n - 1) / n
	return (splits + per - 1) / per
}
