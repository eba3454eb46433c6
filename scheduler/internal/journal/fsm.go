package journal

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
)

// Planner turns a Submit into the submission the Machine takes: it parses
// the spec, applies the overrides and builds the plan and its Replan. It
// must be a pure function of the command (no clock, no disk, no network),
// so that every replay plans the same job; an error refuses the job.
type Planner func(Submit) (lifecycle.Submission, error)

// Result is what applying a command returned.
type Result struct {
	// Index is the command's index in the log, and Command the command.
	Index   uint64
	Command Command
	// Actions are the actions the event returned; only the leader carries
	// them out.
	Actions []lifecycle.Action
	// TaskManager and Adopted answer Register; Known answers Heartbeat;
	// Savepoint is the checkpoint a Savepoint took.
	TaskManager string
	Adopted     []lifecycle.TaskID
	Known       bool
	Savepoint   int64
	// Err is the event's error (Submit, Rescale, Savepoint, Cancel), or a
	// command that could not be decoded.
	Err error
}

// FSM applies commands to a lifecycle.Machine. It is not safe for
// concurrent use.
type FSM struct {
	cfg  lifecycle.Config
	plan Planner
	m    *lifecycle.Machine
	// submits are the jobs' Submit commands, by job id.
	submits map[string]*Submit
	// modules are the modules journaled, by digest.
	modules map[string][]byte
	// infos are what is known of the modules besides their bytes, by
	// digest; a module journaled without any has none.
	infos map[string]ModuleInfo
	// members are the group's members' addresses, by Raft id.
	members map[string]Member
	// applied is the index of the last command applied.
	applied uint64
}

// New returns an FSM with a new Machine of configuration cfg.
func New(cfg lifecycle.Config, plan Planner) *FSM {
	f := &FSM{cfg: cfg, plan: plan}
	f.reset()
	return f
}

func (f *FSM) reset() {
	f.m, f.submits, f.modules, f.applied = lifecycle.New(f.cfg), map[string]*Submit{}, map[string][]byte{}, 0
	f.infos = map[string]ModuleInfo{}
	f.members = map[string]Member{}
}

// Machine returns the machine the commands build. Callers may read it and
// feed it Metrics, under the same serialization as Apply; every other
// event goes through Apply.
func (f *FSM) Machine() *lifecycle.Machine { return f.m }

// Submitted returns a job's Submit command, or nil. The FSM owns it.
func (f *FSM) Submitted(job string) *Submit { return f.submits[job] }

// Modules returns the modules journaled, by digest. The FSM owns them.
func (f *FSM) Modules() map[string][]byte { return f.modules }

// Member returns the addresses journaled for the member of Raft id id,
// and whether any are.
func (f *FSM) Member(id string) (Member, bool) {
	m, ok := f.members[id]
	return m, ok
}

// Members returns the members' addresses journaled, by Raft id. The FSM
// owns them.
func (f *FSM) Members() map[string]Member { return f.members }

// Applied returns the index of the last command applied.
func (f *FSM) Applied() uint64 { return f.applied }

// Apply decodes and applies the command at index of the log and returns
// its *Result. A command that cannot be decoded changes nothing; its
// Result's Err says why (the same bytes fail the same way on every
// member, so they stay in step).
func (f *FSM) Apply(index uint64, b []byte) any {
	f.applied = max(f.applied, index)
	c, err := Decode(b)
	if err != nil {
		return &Result{Index: index, Err: err}
	}
	r := f.apply(c)
	r.Index, r.Command = index, c
	return r
}

// apply feeds one command to the machine.
func (f *FSM) apply(c Command) *Result {
	m, r := f.m, &Result{}
	switch c := c.(type) {
	case Register:
		r.TaskManager, r.Adopted, r.Actions = m.Register(c.At, c.Addr, c.Hostname, c.Slots, c.Previous, c.Tasks)
	case Heartbeat:
		r.Known = m.Heartbeat(c.At, c.TaskManager)
	case LoseTaskManager:
		r.Actions = m.LoseTaskManager(c.At, c.TaskManager, c.Reason)
	case Lead:
		r.Actions = m.Lead(c.At)
	case Tick:
		r.Actions = m.Tick(c.At)
	case Submit:
		r.Actions, r.Err = f.submit(c)
	case TaskStatus:
		r.Actions = m.TaskStatus(c.At, c.TaskManager, c.Task, c.State, c.Message, c.States, c.Failure)
	case DeployUnreachable:
		r.Actions = m.DeployUnreachable(c.At, c.Task, c.TaskManager, c.Err)
	case ResumeFailed:
		r.Actions = m.ResumeFailed(c.At, c.Task, c.TaskManager, c.Err)
	case Ack:
		r.Actions = m.Ack(c.At, c.Task, c.ID, c.State)
	case Decline:
		r.Actions = m.Decline(c.At, c.Task, c.ID, c.Reason)
	case MetadataWritten:
		var err error
		if c.Err != "" {
			err = errors.New(c.Err)
		}
		if c.Metadata == nil {
			r.Err = fmt.Errorf("%w: written without metadata", ErrMalformed)
			break
		}
		r.Actions = m.MetadataWritten(c.At, c.Job, c.Attempt, c.Metadata, err)
	case Rescale:
		r.Actions, r.Err = m.Rescale(c.At, c.Job, c.Parallelism, c.Operators)
	case SetAutoscaler:
		r.Actions, r.Err = m.SetAutoscaler(c.At, c.Job, c.Config)
	case Autoscale:
		r.Actions, r.Err = m.Autoscale(c.At, c.Job, c.Decision)
	case Savepoint:
		r.Savepoint, r.Actions, r.Err = m.Savepoint(c.At, c.Job, lifecycle.SavepointRequest{Trigger: c.Trigger, Dir: c.Dir, Stop: c.Stop})
	case SavepointDone:
		r.Actions = m.SavepointDone(c.At, c.Job, c.Trigger, c.ID, c.Path, c.Failure)
	case Unpin:
		m.Unpin(c.Job, c.ID)
	case StopWithSavepoint:
		r.Actions = m.StopWithSavepoint(c.At, c.Job, c.Path)
	case Cancel:
		r.Actions, r.Err = m.Cancel(c.At, c.Job)
	case Module:
		f.modules[c.Digest] = c.Wasm
		if c.Info != nil {
			f.infos[c.Digest] = *c.Info
		}
	case DropModule:
		r.Err = f.dropModule(c.Digest)
	case Member:
		f.members[c.ID] = c
	default:
		panic(fmt.Sprintf("journal: command %T has no event", c))
	}
	return r
}

// submit plans a submitted job and adds it.
func (f *FSM) submit(c Submit) ([]lifecycle.Action, error) {
	if f.m.Job(c.Job) != nil {
		return nil, fmt.Errorf("journal: job %s is already submitted", c.Job)
	}
	if err := f.checkDigests(c); err != nil {
		return nil, err
	}
	sub, err := f.plan(c)
	if err != nil {
		return nil, err
	}
	sub.ID = c.Job
	f.submits[c.Job] = &c
	return f.m.Submit(c.At, sub), nil
}

// snapshot is what Snapshot writes: the machine's state, the jobs'
// submissions it is rebuilt with, and the modules. Version 1 snapshots,
// every command applied so far, are still read.
type snapshot struct {
	Version int               `json:"version"`
	Applied uint64            `json:"applied"`
	Machine json.RawMessage   `json:"machine,omitempty"`
	Submits []*Submit         `json:"submits,omitempty"`
	Modules map[string][]byte `json:"modules,omitempty"`
	// ModuleInfo is new in version 2 snapshots: older ones lack it.
	ModuleInfo map[string]ModuleInfo `json:"moduleInfo,omitempty"`
	Members    map[string]Member     `json:"members,omitempty"`
	Commands   []json.RawMessage     `json:"commands,omitempty"`
}

// Snapshot returns the state to restore. The bytes are the caller's.
func (f *FSM) Snapshot() ([]byte, error) {
	m, err := f.m.MarshalState()
	if err != nil {
		return nil, fmt.Errorf("journal: snapshot: %w", err)
	}
	s := snapshot{Version: 2, Applied: f.applied, Machine: m, Modules: f.modules, ModuleInfo: f.infos, Members: f.members}
	for _, j := range f.m.Jobs() {
		s.Submits = append(s.Submits, f.submits[j.ID])
	}
	return json.Marshal(s)
}

// Restore replaces the FSM's state with a snapshot's. On error the FSM is
// empty.
func (f *FSM) Restore(b []byte) error {
	f.reset()
	var s snapshot
	if err := strict(b, &s); err != nil {
		return fmt.Errorf("journal: snapshot: %w", err)
	}
	var err error
	switch s.Version {
	case 1:
		err = f.replay(s.Commands)
	case 2:
		err = f.restore(s)
	default:
		err = fmt.Errorf("journal: snapshot version %d; this scheduler reads versions 1 and 2", s.Version)
	}
	if err != nil {
		f.reset()
		return err
	}
	f.applied = s.Applied
	return nil
}

// replay applies a version 1 snapshot's commands.
func (f *FSM) replay(cmds []json.RawMessage) error {
	for i, raw := range cmds {
		c, err := Decode(raw)
		if err != nil {
			return fmt.Errorf("journal: snapshot command %d: %w", i, err)
		}
		f.apply(c)
	}
	return nil
}

// restore takes a version 2 snapshot's state: each job is planned again
// from its submission.
func (f *FSM) restore(s snapshot) error {
	for _, sub := range s.Submits {
		if sub == nil {
			return fmt.Errorf("%w: a snapshot's job without its submission", ErrMalformed)
		}
		f.submits[sub.Job] = sub
	}
	plan := func(job string) (lifecycle.Submission, error) {
		c, ok := f.submits[job]
		if !ok {
			return lifecycle.Submission{}, fmt.Errorf("%w: no submission of job %s in the snapshot", ErrMalformed, job)
		}
		sub, err := f.plan(*c)
		sub.ID = job
		return sub, err
	}
	if err := f.m.RestoreState(s.Machine, plan); err != nil {
		return fmt.Errorf("journal: snapshot: %w", err)
	}
	if s.Modules != nil {
		f.modules = s.Modules
	}
	if s.ModuleInfo != nil {
		f.infos = s.ModuleInfo
	}
	if s.Members != nil {
		f.members = s.Members
	}
	return nil
}
