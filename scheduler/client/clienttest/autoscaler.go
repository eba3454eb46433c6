package clienttest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
)

var _ api.AutoscalerService = (*Fake)(nil)

// Autoscaler returns a job's autoscaling policy: its spec's, or the last
// one SetAutoscaler gave it. The Fake decides nothing: Decisions is empty.
func (f *Fake) Autoscaler(_ context.Context, id string) (api.AutoscalerStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.find(id)
	if err != nil {
		return api.AutoscalerStatus{}, err
	}
	return fakeAutoscaler(id, j.spec.Autoscaler), nil
}

// SetAutoscaler checks a policy as the scheduler does (jobspec's rules,
// api.ErrBadRequest) and gives it to the job; a job that has ended is
// api.ErrConflict.
func (f *Fake) SetAutoscaler(_ context.Context, id string, c api.AutoscalerConfig) (api.AutoscalerStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, err := f.find(id)
	if err != nil {
		return api.AutoscalerStatus{}, err
	}
	if api.Terminal(j.status.State) {
		return api.AutoscalerStatus{}, fmt.Errorf("%w: job %s is %s", api.ErrConflict, id, j.status.State)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return api.AutoscalerStatus{}, err
	}
	a, err := jobspec.ParseAutoscaler(b, j.spec.MaxParallelism)
	if err != nil {
		return api.AutoscalerStatus{}, fmt.Errorf("%w: %v", api.ErrBadRequest, err)
	}
	spec := *j.spec
	spec.Autoscaler = a
	j.spec = &spec
	return fakeAutoscaler(id, a), nil
}

func fakeAutoscaler(id string, a jobspec.Autoscaler) api.AutoscalerStatus {
	a = a.WithDefaults()
	c := api.AutoscalerConfig{Enabled: a.Enabled, MinParallelism: a.MinParallelism, MaxParallelism: a.MaxParallelism,
		TargetUtilization: a.TargetUtilization, Stabilization: a.Stabilization.String(), Cooldown: a.Cooldown.String(),
		MaxScaleUpFactor: a.MaxScaleUpFactor, MaxScaleDownFactor: a.MaxScaleDownFactor, Interval: a.Interval.String()}
	if a.CatchUp > 0 {
		c.CatchUp = a.CatchUp.String()
	}
	if a.MaxLag > 0 {
		c.MaxLag = a.MaxLag.String()
	}
	c.MaxBacklog = a.MaxBacklog
	for _, w := range a.Schedule {
		c.Schedule = append(c.Schedule, api.AutoscalerWindow{From: clock(w.From), To: clock(w.To),
			MinParallelism: w.MinParallelism, MaxParallelism: w.MaxParallelism})
	}
	return api.AutoscalerStatus{ID: id, Config: c, Decisions: []api.AutoscalerDecision{}}
}

// clock renders a time after midnight as "08:00".
func clock(d time.Duration) string {
	return fmt.Sprintf("%02d:%02d", int(d.Hours()), int(d.Minutes())%60)
}
