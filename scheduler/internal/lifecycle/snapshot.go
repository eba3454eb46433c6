package lifecycle

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/coordinator"
)

// A Machine's state can be written as data and read back (MarshalState,
// RestoreState), so that a snapshot of the log it is applied from holds
// its state rather than every event since the start. What is not data —
// a job's plan and its Replan function — is rebuilt from the job's
// submission, which the caller keeps.

// machineState is a Machine's state as data.
type machineState struct {
	Version      int
	NextTM       int
	TaskManagers []tmState
	Jobs         []jobState // oldest first
}

type tmState struct {
	TaskManager
	Rejoin   bool      `json:",omitempty"`
	RejoinBy time.Time `json:",omitempty"`
}

type jobState struct {
	ID                                   string
	Par                                  int
	OpPar                                map[string]int `json:",omitempty"`
	Replanned                            bool           `json:",omitempty"`
	Slots                                int
	Strategy                             jobspec.RestartStrategy
	State, Message                       string
	Attempt, Restarts                    int
	RestartAt, Submitted, Started, Ended time.Time
	Backoff                              int       `json:",omitempty"`
	RunningSince                         time.Time `json:",omitzero"`
	History                              []api.Event
	HistoryDropped                       int                 `json:",omitempty"`
	Tasks                                [][]*Task           `json:",omitempty"`
	LastPlacement, Placement, Awaiting   []string            `json:",omitempty"`
	States                               map[string]Declared `json:",omitempty"`
	FinalSent                            bool                `json:",omitempty"`
	FinishedSources                      []int               `json:",omitempty"`
	// FinishedSourceTasks are the finished source subtasks of stages
	// after the first (a job with several sources); FinishedSources
	// those of stage 0.
	FinishedSourceTasks []coordinator.Task `json:",omitempty"`
	Checkpoints         *checkpointsState  `json:",omitempty"`
	Rescale             *rescaleState      `json:",omitempty"`
	Stats               Stats              `json:",omitzero"`
	Exceptions          *Exceptions        `json:",omitempty"`
	Suspect             *suspect           `json:",omitempty"`
	// Autoscaler is nil in states written before autoscaling: the job
	// then has its spec's policy.
	Autoscaler *Autoscaling `json:",omitempty"`
}

type checkpointsState struct {
	Coordinator coordinator.State
	Store       string
	Retain      int
	Completed   []metadataState
	History     []*api.CheckpointStatus
	Triggers    []*api.SavepointTrigger `json:",omitempty"`
	Pinned      []metadataState         `json:",omitempty"`
}

// metadataState is a checkpoint's metadata with its Store, which the
// metadata's own encoding leaves out.
type metadataState struct {
	Metadata *ckmeta.Metadata
	Store    string `json:",omitempty"`
}

type rescaleState struct {
	Par        int
	Ops        map[string]int
	Checkpoint int64
	Requested  time.Time
	Stopped    time.Time
	From       string
	Partial    bool  `json:",omitempty"`
	Changed    []int `json:",omitempty"`
}

// stateVersion is the version of what MarshalState writes.
const stateVersion = 1

// MarshalState returns the machine's whole state as bytes. It changes
// nothing; the bytes are the caller's.
func (m *Machine) MarshalState() ([]byte, error) {
	s := machineState{Version: stateVersion, NextTM: m.nextTM}
	for _, tm := range m.TaskManagers() {
		s.TaskManagers = append(s.TaskManagers, tmState{TaskManager: *tm, Rejoin: tm.rejoin, RejoinBy: tm.rejoinBy})
	}
	for _, id := range m.order {
		s.Jobs = append(s.Jobs, jobToState(m.jobs[id]))
	}
	return json.Marshal(s)
}

func jobToState(j *Job) jobState {
	s := jobState{ID: j.ID, Par: j.Par, OpPar: j.OpPar, Replanned: j.OpPar != nil, Slots: j.Slots, Strategy: j.Strategy,
		State: j.State, Message: j.Message, Attempt: j.Attempt, Restarts: j.Restarts, RestartAt: j.RestartAt,
		Backoff: j.Backoff, RunningSince: j.RunningSince, Submitted: j.Submitted, Started: j.Started, Ended: j.Ended, History: j.History, HistoryDropped: j.HistoryDropped, Tasks: j.Tasks,
		LastPlacement: j.LastPlacement, Placement: j.placement, Awaiting: j.awaiting, States: j.States,
		FinalSent: j.finalSent, Stats: j.Stats, Suspect: j.suspect, Autoscaler: &j.Autoscaler}
	for _, t := range slices.SortedFunc(maps.Keys(j.finishedSources), compareTasks) {
		if t.Stage == 0 {
			s.FinishedSources = append(s.FinishedSources, t.Subtask)
		} else {
			s.FinishedSourceTasks = append(s.FinishedSourceTasks, t)
		}
	}
	if c := j.ckpt; c != nil {
		cs := &checkpointsState{Coordinator: c.coord.State(), Store: c.store, Retain: c.retain, History: c.history,
			Triggers: c.triggers}
		for _, md := range c.completed {
			cs.Completed = append(cs.Completed, metadataState{Metadata: md, Store: md.Store})
		}
		for _, id := range slices.Sorted(maps.Keys(c.pinned)) {
			cs.Pinned = append(cs.Pinned, metadataState{Metadata: c.pinned[id], Store: c.pinned[id].Store})
		}
		s.Checkpoints = cs
	}
	if len(j.Exceptions.List) > 0 || j.Exceptions.Dropped > 0 {
		x := j.Exceptions
		s.Exceptions = &x
	}
	if r := j.rescale; r != nil {
		s.Rescale = &rescaleState{Par: r.par, Ops: r.ops, Checkpoint: r.checkpoint, Requested: r.requested, Stopped: r.stopped, From: r.from, Partial: r.partial, Changed: r.changed}
	}
	return s
}

// RestoreState replaces the machine's state with one MarshalState wrote.
// submission returns each job's Submission as Submit took it (its ID,
// Plan, Replan and Checkpoints' configuration are used); a rescaled job's
// plan is made again with its Replan. On error the machine is empty.
func (m *Machine) RestoreState(b []byte, submission func(job string) (Submission, error)) error {
	m.tms, m.jobs, m.order, m.nextTM = map[string]*TaskManager{}, map[string]*Job{}, nil, 0
	var s machineState
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("lifecycle: state: %w", err)
	}
	if s.Version != stateVersion {
		return fmt.Errorf("lifecycle: state version %d; this scheduler reads version %d", s.Version, stateVersion)
	}
	for _, t := range s.TaskManagers {
		tm := t.TaskManager
		tm.rejoin, tm.rejoinBy = t.Rejoin, t.RejoinBy
		m.tms[tm.ID] = &tm
	}
	for _, js := range s.Jobs {
		j, err := jobFromState(js, submission)
		if err != nil {
			m.tms, m.jobs, m.order = map[string]*TaskManager{}, map[string]*Job{}, nil
			return err
		}
		m.jobs[j.ID] = j
		m.order = append(m.order, j.ID)
	}
	m.nextTM = s.NextTM
	return nil
}

func jobFromState(s jobState, submission func(string) (Submission, error)) (*Job, error) {
	sub, err := submission(s.ID)
	if err != nil {
		return nil, fmt.Errorf("lifecycle: state of job %s: %w", s.ID, err)
	}
	j := &Job{ID: s.ID, Plan: sub.Plan, Par: s.Par, OpPar: s.OpPar, Slots: s.Slots, Strategy: s.Strategy,
		State: s.State, Message: s.Message, Attempt: s.Attempt, Restarts: s.Restarts, RestartAt: s.RestartAt,
		Backoff: s.Backoff, RunningSince: s.RunningSince, Submitted: s.Submitted, Started: s.Started, Ended: s.Ended, History: s.History, HistoryDropped: s.HistoryDropped, Tasks: s.Tasks,
		LastPlacement: s.LastPlacement, States: s.States, replan: sub.Replan, placement: s.Placement,
		finalSent: s.FinalSent, awaiting: s.Awaiting, Stats: s.Stats, suspect: s.Suspect}
	if s.Exceptions != nil {
		j.Exceptions = *s.Exceptions
	}
	j.Autoscaler = Autoscaling{Config: sub.Plan.Job.Autoscaler}
	if s.Autoscaler != nil {
		j.Autoscaler = *s.Autoscaler
	}
	if s.Replanned {
		if j.OpPar == nil {
			j.OpPar = map[string]int{}
		}
		if j.Plan, err = j.replan(j.Par, j.OpPar); err != nil {
			return nil, fmt.Errorf("lifecycle: state of job %s: planning it at its parallelism: %w", s.ID, err)
		}
	}
	if len(s.FinishedSources)+len(s.FinishedSourceTasks) > 0 {
		j.finishedSources = map[coordinator.Task]bool{}
		for _, sub := range s.FinishedSources {
			j.finishedSources[coordinator.Task{Stage: 0, Subtask: sub}] = true
		}
		for _, t := range s.FinishedSourceTasks {
			j.finishedSources[t] = true
		}
	}
	if cs := s.Checkpoints; cs != nil {
		cfg := Checkpointing{Store: cs.Store, Retain: cs.Retain}
		if sub.Checkpoints != nil {
			cfg.Coordinator = sub.Checkpoints.Coordinator
		}
		c := newCheckpoints(cfg)
		c.coord.SetState(cs.Coordinator)
		c.history = cs.History
		for _, md := range cs.Completed {
			md.Metadata.Store = md.Store
			c.completed = append(c.completed, md.Metadata)
		}
		c.triggers = cs.Triggers
		if len(cs.Pinned) > 0 {
			c.pinned = map[int64]*ckmeta.Metadata{}
			for _, md := range cs.Pinned {
				md.Metadata.Store = md.Store
				c.pinned[md.Metadata.ID] = md.Metadata
			}
		}
		j.ckpt = c
	}
	if r := s.Rescale; r != nil {
		j.rescale = &rescale{par: r.Par, ops: r.Ops, checkpoint: r.Checkpoint, requested: r.Requested, stopped: r.Stopped, from: r.From, partial: r.Partial, changed: r.Changed}
		if r.Stopped.IsZero() { // not stopped yet: its plan is the one it will take
			if j.rescale.plan, err = j.replan(r.Par, r.Ops); err != nil {
				return nil, fmt.Errorf("lifecycle: state of job %s: planning its rescale: %w", s.ID, err)
			}
		} else {
			j.rescale.plan = j.Plan
		}
	}
	return j, nil
}

// compareTasks orders tasks by stage, then subtask.
func compareTasks(a, b coordinator.Task) int {
	if a.Stage != b.Stage {
		return a.Stage - b.Stage
	}
	return a.Subtask - b.Subtask
}
