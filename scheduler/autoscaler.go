package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/autoscale"
	"github.com/floe-stream/floe/scheduler/internal/journal"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
	"github.com/floe-stream/floe/scheduler/internal/schedmetrics"
)

// The autoscaler's edge (docs/autoscaling.md). The leader feeds each
// job's autoscale.Scaler the counters of every heartbeat, ticks it on the
// server's clock, and journals the decisions that change a parallelism
// (journal.Autoscale), which the lifecycle records and applies as a
// rescale. The samples and the latest decision that changed nothing are
// the leader's alone: a new leader gathers a stabilization window of
// metrics again before it decides.

var _ api.AutoscalerService = (*Server)(nil)

// taskMetrics records a subtask's metrics in the lifecycle and feeds them
// to its job's autoscaler. The caller holds s.mu.
func (s *Server) taskMetrics(id lifecycle.TaskID, smp lifecycle.Sample) {
	m := s.machine()
	m.Metrics(id, smp)
	j := m.Job(id.Job)
	if j == nil || id.Attempt != j.Attempt || !j.Autoscaler.Config.Enabled || !s.ready {
		return
	}
	c := autoscale.Counters{At: smp.At, RecordsIn: smp.RecordsIn, RecordsOut: smp.RecordsOut,
		BackPressure: smp.BackPressure, Idle: smp.Idle, Checkpointing: smp.Checkpointing}
	switch {
	case smp.Backlog >= 0:
		c.Backlog, c.LogLag = float64(smp.Backlog), true
	case smp.BytesTotal > 0 && smp.BytesRead > 0 && smp.RecordsIn > 0:
		// A bounded file's bytes left, in records at the bytes per record
		// read so far.
		c.Backlog = float64(max(0, smp.BytesTotal-smp.BytesRead)) * float64(smp.RecordsIn) / float64(smp.BytesRead)
	}
	if smp.Splits >= 0 {
		c.Splits, c.HasSplits = smp.Splits, true
	}
	if wm := watermark(smp.InputWatermark); wm != nil && smp.At.After(*wm) {
		c.Lag = smp.At.Sub(*wm)
	}
	switch {
	case smp.PacedRate > 0:
		// The rate of the schedule's step the subtask is at.
		c.GeneratorRate = smp.PacedRate
	case id.Stage < len(j.Plan.Stages):
		st := j.Plan.Stages[id.Stage]
		if src := st.Source; src != nil && st.Parallelism > 0 {
			if r, ok := src.Spec.(jobspec.RateLimited); ok {
				c.GeneratorRate = r.ConfiguredRate() / float64(st.Parallelism)
			}
		}
	}
	s.scaler(id.Job).Observe(id.Attempt, id.Stage, id.Subtask, c)
}

// scaler returns a job's autoscaler, made on first use. The caller holds
// s.mu.
func (s *Server) scaler(job string) *autoscale.Scaler {
	sc := s.scalers[job]
	if sc == nil {
		sc = &autoscale.Scaler{}
		s.scalers[job] = sc
	}
	return sc
}

// autoscale ticks the autoscaler of every running job that has one on,
// and journals the decisions that change a parallelism.
func (s *Server) autoscale(now time.Time) {
	s.mu.Lock()
	if !s.ready {
		clear(s.scalers)
		s.mu.Unlock()
		return
	}
	var changes []journal.Autoscale
	m := s.machine()
	free := 0
	for _, tm := range m.TaskManagers() {
		free += tm.Slots - tm.Used
	}
	for _, j := range m.Jobs() {
		cfg := j.Autoscaler.Config
		if !cfg.Enabled || api.Terminal(j.State) {
			delete(s.scalers, j.ID)
			continue
		}
		// NB: a spec may enable the autoscaler of a job submitted without
		// checkpoints, which cannot be rescaled: it is not decided for,
		// rather than journaling a refused rescale every interval.
		if j.State != api.JobRunning || j.Rescaling() || !j.TakesCheckpoints() {
			continue
		}
		sc := s.scaler(j.ID)
		observeFinished(sc, j, now)
		d, ok, err := sc.Tick(now, autoscale.Job{Config: coreConfig(cfg), Vertices: vertices(j.Plan),
			Cluster: autoscale.Cluster{FreeSlots: free}, LastRescale: settledSince(j), Interval: cfg.WithDefaults().Interval})
		if err != nil {
			s.log.Warn("autoscaler", "job", j.ID, "err", err)
			continue
		}
		if ok && d.Change {
			changes = append(changes, journal.Autoscale{At: now, Job: j.ID, Decision: d})
		}
	}
	s.mu.Unlock()
	for _, c := range changes {
		s.log.Info("autoscaler rescales a job", "job", c.Job, "reason", c.Decision.Reason)
		s.event(c)
	}
}

// observeFinished feeds the autoscaler a sample of every subtask of the
// job's attempt that has finished (a bounded source's subtask, or one
// without a split): it reports no more heartbeats, yet every subtask must
// cover the window for a decision. A finished subtask is idle.
func observeFinished(sc *autoscale.Scaler, j *lifecycle.Job, now time.Time) {
	for stage, tasks := range j.Tasks {
		for sub, t := range tasks {
			if t.State == api.TaskFinished {
				sc.Observe(j.Attempt, stage, sub, autoscale.Counters{At: now, RecordsIn: t.RecordsIn, RecordsOut: t.RecordsOut, Idle: 1})
			}
		}
	}
}

// settledSince is when the job's current attempt last changed: the later
// of the autoscaler's last rescale and the time every task of the attempt
// ran. The cooldown and the metrics window start there, so that neither a
// rescale's nor a restart's downtime and warm-up (modules compiled, state
// opened) count as load.
func settledSince(j *lifecycle.Job) time.Time {
	if j.RunningSince.After(j.Autoscaler.LastRescale) {
		return j.RunningSince
	}
	return j.Autoscaler.LastRescale
}

// coreConfig is a spec's policy as the decision core takes it.
func coreConfig(a jobspec.Autoscaler) autoscale.Config {
	c := autoscale.Config{Enabled: a.Enabled, MinParallelism: a.MinParallelism, MaxParallelism: a.MaxParallelism,
		TargetUtilization: a.TargetUtilization, Stabilization: a.Stabilization, Cooldown: a.Cooldown,
		MaxScaleUpFactor: a.MaxScaleUpFactor, MaxScaleDownFactor: a.MaxScaleDownFactor, CatchUp: a.CatchUp, MaxLag: a.MaxLag,
		MaxBacklog: float64(a.MaxBacklog)}
	for _, w := range a.Schedule {
		c.Schedule = append(c.Schedule, autoscale.Window{From: w.From, To: w.To, Min: w.MinParallelism, Max: w.MaxParallelism})
	}
	return c
}

// vertices are a plan's stages as the decision core takes them: stages
// are in topological order, as the plan builds them.
func vertices(p *plan.Plan) []autoscale.Vertex {
	out := make([]autoscale.Vertex, len(p.Stages))
	for i, st := range p.Stages {
		v := autoscale.Vertex{ID: i, Name: st.Name, Parallelism: st.Parallelism, KeyGroups: p.Job.MaxParallelism, Source: st.Source != nil}
		for _, e := range st.Inputs {
			v.Inputs = append(v.Inputs, e.From)
		}
		out[i] = v
	}
	return out
}

// Autoscaler implements api.AutoscalerService.
func (s *Server) Autoscaler(ctx context.Context, id string) (api.AutoscalerStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.machine().Job(id)
	if j == nil {
		return api.AutoscalerStatus{}, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	var latest *autoscale.Decision
	if sc := s.scalers[id]; sc != nil {
		latest = sc.Latest
	}
	return autoscalerStatus(j, latest), nil
}

// SetAutoscaler implements api.AutoscalerService.
func (s *Server) SetAutoscaler(ctx context.Context, id string, c api.AutoscalerConfig) (api.AutoscalerStatus, error) {
	s.mu.Lock()
	j := s.machine().Job(id)
	keyGroups := 0
	if j != nil {
		keyGroups = j.Plan.Job.MaxParallelism
	}
	s.mu.Unlock()
	if j == nil {
		return api.AutoscalerStatus{}, fmt.Errorf("%w: no job %q", api.ErrNotFound, id)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return api.AutoscalerStatus{}, err
	}
	cfg, err := jobspec.ParseAutoscaler(b, keyGroups)
	if err != nil {
		return api.AutoscalerStatus{}, fmt.Errorf("%w: %v", api.ErrBadRequest, err)
	}
	res, err := s.propose(ctx, journal.SetAutoscaler{At: s.now(), Job: id, Config: cfg})
	if err != nil {
		return api.AutoscalerStatus{}, err
	}
	if res.Err != nil {
		return api.AutoscalerStatus{}, res.Err
	}
	return s.Autoscaler(ctx, id)
}

// autoscalerStatus renders a job's autoscaler with the leader's latest
// decision, which may be nil. The caller holds s.mu.
func autoscalerStatus(j *lifecycle.Job, latest *autoscale.Decision) api.AutoscalerStatus {
	a := j.Autoscaler
	out := api.AutoscalerStatus{ID: j.ID, Config: apiAutoscalerConfig(a.Config), Rescales: a.Rescales, Decisions: []api.AutoscalerDecision{}}
	if !a.LastRescale.IsZero() {
		t := a.LastRescale
		out.LastRescale = &t
	}
	if latest != nil && !latest.Change {
		out.Decisions = append(out.Decisions, apiDecision(*latest, false))
	}
	for i := len(a.Decisions) - 1; i >= 0; i-- {
		out.Decisions = append(out.Decisions, apiDecision(a.Decisions[i], true))
	}
	if len(out.Decisions) > 0 {
		out.SlotsMissing = out.Decisions[0].SlotsMissing
	}
	return out
}

func apiAutoscalerConfig(a jobspec.Autoscaler) api.AutoscalerConfig {
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
	c.Schedule = apiWindows(a.Schedule)
	return c
}

func apiDecision(d autoscale.Decision, journaled bool) api.AutoscalerDecision {
	out := api.AutoscalerDecision{At: d.At, Change: d.Change, Reason: d.Reason, SlotsNeeded: d.SlotsNeeded,
		SlotsMissing: d.SlotsMissing, Journaled: journaled, LagMillis: d.Lag.Milliseconds(), Backlog: d.Backlog, Window: d.Window}
	for _, v := range d.Vertices {
		out.Vertices = append(out.Vertices, api.AutoscalerVertex{Stage: v.ID, Name: v.Name, Current: v.Current,
			Computed: v.Computed, New: v.New, Required: v.Required, InputRate: v.InputRate, Backlog: v.Backlog,
			Splits: v.Splits, Observed: v.Observed, OutputRatio: v.OutputRatio, Busiest: v.Busiest, Busy: v.Busy,
			BackPressure: v.BackPressure, Idle: v.Idle, LoadShare: v.LoadShare, HotShare: v.HotShare,
			TrueRate: v.TrueRate, Skewed: v.Skewed(), Notes: v.Notes})
	}
	return out
}

// autoscalerSnapshot is a job's autoscaler as its metrics show it, nil
// when it is off. The caller holds s.mu.
func (s *Server) autoscalerSnapshot(j *lifecycle.Job) *schedmetrics.Autoscaler {
	if !j.Autoscaler.Config.Enabled {
		return nil
	}
	var latest *autoscale.Decision
	if sc := s.scalers[j.ID]; sc != nil {
		latest = sc.Latest
	}
	st := autoscalerStatus(j, latest)
	out := &schedmetrics.Autoscaler{Rescales: st.Rescales, SlotsMissing: st.SlotsMissing}
	if len(st.Decisions) > 0 {
		for _, v := range st.Decisions[0].Vertices {
			if v.Skewed {
				out.SkewedVertices++
			}
		}
	}
	return out
}

// apiWindows renders a policy's schedule for the REST API.
func apiWindows(ws []jobspec.AutoscalerWindow) []api.AutoscalerWindow {
	var out []api.AutoscalerWindow
	for _, w := range ws {
		out = append(out, api.AutoscalerWindow{From: timeOfDay(w.From), To: timeOfDay(w.To),
			MinParallelism: w.MinParallelism, MaxParallelism: w.MaxParallelism})
	}
	return out
}

// timeOfDay renders a time after midnight as "08:00".
func timeOfDay(d time.Duration) string {
	return fmt.Sprintf("%02d:%02d", int(d.Hours()), int(d.Minutes())%60)
}
