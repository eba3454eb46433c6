package autoscale

import (
	"fmt"
	"math"
	"time"
)

// The latency policy (Config.MaxLag, Config.MaxBacklog): the job's
// event-time lag, the largest of its subtasks' latest, must stay under
// MaxLag, and the records waiting at its sources (Kafka lag, the sum of
// their subtasks' latest backlogs) under MaxBacklog. Utilization
// decides as usual; while the lag is above the bound, no vertex scales
// down, and if none scales up either, the vertex whose busiest subtask is
// the busiest of all (the bottleneck: back-pressure shows on the vertices
// before it, not on it) is scaled up by MaxScaleUpFactor, or doubled
// without one, within its bounds. The lag is what the records wait, so
// more subtasks on the bottleneck are what brings it down; a source
// without watermarks reports none and the policy does nothing.

// jobLag is the largest latest lag of any subtask in the window.
func jobLag(stats map[key]*window) time.Duration {
	var lag time.Duration
	for _, w := range stats {
		lag = max(lag, w.lag)
	}
	return lag
}

// jobBacklog is the sum of the sources' subtasks' latest backlogs.
func jobBacklog(vertices []Vertex, stats map[key]*window) float64 {
	var n float64
	for _, v := range vertices {
		for s := 0; v.Source && s < v.Parallelism; s++ {
			if w := stats[key{v.ID, s}]; w != nil {
				n += w.backlog
			}
		}
	}
	return n
}

// applyLatency applies the latency policy to d, whose vertices are
// decided and bounded but not yet capped by slots.
func applyLatency(cfg Config, vertices []Vertex, d *Decision, lag time.Duration, backlog float64) {
	var why string
	switch {
	case cfg.MaxLag > 0 && lag > cfg.MaxLag:
		d.Lag = lag
		why = fmt.Sprintf("latency: event-time lag %s above maxLag %s", lag, cfg.MaxLag)
	case cfg.MaxBacklog > 0 && backlog > cfg.MaxBacklog:
		d.Backlog = backlog
		why = fmt.Sprintf("latency: backlog %s records above maxBacklog %s", num(backlog), num(cfg.MaxBacklog))
	default:
		return
	}
	up, bottleneck := false, -1
	for i := range d.Vertices {
		v := &d.Vertices[i]
		if v.New < v.Current {
			v.Notes = append(v.Notes, fmt.Sprintf("%s: no scale down from %d to %d", why, v.Current, v.New))
			v.New = v.Current
		}
		up = up || v.New > v.Current
		if bottleneck < 0 || v.Busy > d.Vertices[bottleneck].Busy {
			bottleneck = i
		}
	}
	if !up && bottleneck >= 0 {
		v := &d.Vertices[bottleneck]
		factor := cfg.MaxScaleUpFactor
		if factor < 1 {
			factor = 2
		}
		n := max(v.Current+1, int(math.Floor(float64(v.Current)*factor+1e-9)))
		v.Notes = append(v.Notes, fmt.Sprintf("%s: the busiest vertex goes from %d to %d", why, v.Current, n))
		v.New = n
	}
	// NB: the policy's maxParallelism and the key groups still bound it.
	for i := range d.Vertices {
		for _, vx := range vertices {
			if vx.ID == d.Vertices[i].ID {
				bound(Config{MaxParallelism: cfg.MaxParallelism}, vx, &d.Vertices[i])
			}
		}
	}
}
