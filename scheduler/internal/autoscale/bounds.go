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
		clampMax(&d.Vertices[i], avail, fmt.Sprintf("slots (the job holds %d, %d free)", held, c.FreeSlots))
	}
}
