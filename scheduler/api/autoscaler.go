package api

import (
	"context"
	"time"
)

// AutoscalerConfig is a job's autoscaling policy, the job spec's
// autoscaler: section (docs/jobs.md, "Autoscaler"), as GET and PUT
// /v1/jobs/{id}/autoscaler show and take it. Durations are Go durations
// such as "1m30s"; a PUT's absent fields take their defaults.
type AutoscalerConfig struct {
	Enabled            bool    `json:"enabled"`
	MinParallelism     int     `json:"minParallelism,omitempty"`
	MaxParallelism     int     `json:"maxParallelism,omitempty"`
	TargetUtilization  float64 `json:"targetUtilization,omitempty"`
	Stabilization      string  `json:"stabilization,omitempty"`
	Cooldown           string  `json:"cooldown,omitempty"`
	MaxScaleUpFactor   float64 `json:"maxScaleUpFactor,omitempty"`
	MaxScaleDownFactor float64 `json:"maxScaleDownFactor,omitempty"`
	CatchUp            string  `json:"catchUp,omitempty"`
	Interval           string  `json:"interval,omitempty"`
	MaxLag             string  `json:"maxLag,omitempty"`
	MaxBacklog         int64   `json:"maxBacklog,omitempty"`
	// Schedule holds times of day with other bounds; the first window
	// that holds applies.
	Schedule []AutoscalerWindow `json:"schedule,omitempty"`
}

// AutoscalerWindow is a time of day, "08:00" to "20:00" UTC (wrapping past
// midnight when to is not after from), with the bounds that apply then.
type AutoscalerWindow struct {
	From           string `json:"from"`
	To             string `json:"to"`
	MinParallelism int    `json:"minParallelism,omitempty"`
	MaxParallelism int    `json:"maxParallelism,omitempty"`
}

// AutoscalerStatus is a job's autoscaler: its policy and its decisions.
type AutoscalerStatus struct {
	ID     string           `json:"id"`
	Config AutoscalerConfig `json:"config"`
	// Rescales counts the rescales the autoscaler started; LastRescale is
	// when it last did, absent if never.
	Rescales    int        `json:"rescales"`
	LastRescale *time.Time `json:"lastRescale,omitempty"`
	// SlotsMissing is how many slots the latest decision needed and the
	// cluster did not have.
	SlotsMissing int `json:"slotsMissing"`
	// Decisions are the decisions, newest first: every one that changed a
	// parallelism (journaled: every scheduler of a group has them), and
	// the latest one when it changed nothing (kept by the leader alone,
	// Journaled false).
	Decisions []AutoscalerDecision `json:"decisions"`
}

// AutoscalerDecision is one decision of the autoscaler with the inputs it
// was computed from (docs/autoscaling.md).
type AutoscalerDecision struct {
	At     time.Time `json:"at"`
	Change bool      `json:"change"`
	// Reason says why in one sentence: disabled, cooldown, not enough
	// metrics, no change, rescale; skew and missing slots when they limit.
	Reason string `json:"reason"`
	// SlotsNeeded is the slots the computed parallelism needs, and
	// SlotsMissing how many of them the cluster does not have.
	SlotsNeeded  int  `json:"slotsNeeded"`
	SlotsMissing int  `json:"slotsMissing"`
	Journaled    bool `json:"journaled"`
	// LagMillis is the job's event-time lag when the latency policy found
	// it above maxLag, absent otherwise.
	LagMillis int64 `json:"lagMillis,omitempty"`
	// Backlog is the records waiting at the job's sources when the latency
	// policy found them above maxBacklog, absent otherwise.
	Backlog float64 `json:"backlog,omitempty"`
	// Window is the schedule's window whose bounds applied, as
	// "08:00-20:00", absent when none did.
	Window string `json:"window,omitempty"`
	// Vertices is empty when no decision was computed.
	Vertices []AutoscalerVertex `json:"vertices,omitempty"`
}

// AutoscalerVertex is one stage's part of a decision.
type AutoscalerVertex struct {
	Stage int    `json:"stage"`
	Name  string `json:"name"`
	// Current is the parallelism before, Computed what the formula asks
	// for, New what the bounds let it have.
	Current  int `json:"current"`
	Computed int `json:"computed"`
	New      int `json:"new"`
	// Required is the records per second the stage must process;
	// InputRate and Backlog a source's; Observed what it processed;
	// OutputRatio its records out per record in.
	Required  float64 `json:"required"`
	InputRate float64 `json:"inputRate"`
	Backlog   float64 `json:"backlog"`
	// Splits is a source's splits (Kafka partitions, a followed file),
	// which bound its parallelism; 0 when unknown.
	Splits      int     `json:"splits,omitempty"`
	Observed    float64 `json:"observed"`
	OutputRatio float64 `json:"outputRatio"`
	// Busiest is the busiest subtask; the shares are its, HotShare the
	// share of the stage's records taken as unsplittable, TrueRate its
	// records per busy second.
	Busiest      int     `json:"busiest"`
	Busy         float64 `json:"busy"`
	BackPressure float64 `json:"backPressure"`
	Idle         float64 `json:"idle"`
	LoadShare    float64 `json:"loadShare"`
	HotShare     float64 `json:"hotShare"`
	TrueRate     float64 `json:"trueRate"`
	// Skewed tells that skew limited the stage.
	Skewed bool `json:"skewed"`
	// Notes are the bounds that applied, in order.
	Notes []string `json:"notes,omitempty"`
}

// AutoscalerService is implemented by a Service with an autoscaler: the
// REST API serves GET and PUT /v1/jobs/{id}/autoscaler when its Service
// does.
type AutoscalerService interface {
	// Autoscaler returns a job's autoscaler, or an error wrapping
	// ErrNotFound.
	Autoscaler(ctx context.Context, id string) (AutoscalerStatus, error)
	// SetAutoscaler replaces a job's policy. Errors wrap ErrNotFound,
	// ErrBadRequest (a field out of range) or ErrConflict (the job has
	// ended, or enabling it on a job without checkpoints).
	SetAutoscaler(ctx context.Context, id string, c AutoscalerConfig) (AutoscalerStatus, error)
}
