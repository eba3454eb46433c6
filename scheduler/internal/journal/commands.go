package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/internal/autoscale"
	"github.com/floe-stream/floe/scheduler/internal/lifecycle"
)

// Command is one lifecycle event, as data: one of the types below.
type Command interface{ command() }

// Register is lifecycle.Machine.Register.
type Register struct {
	At       time.Time
	Addr     string
	Hostname string
	Slots    int
	Previous string               `json:",omitempty"`
	Tasks    []lifecycle.Reported `json:",omitempty"`
}

// Heartbeat is lifecycle.Machine.Heartbeat.
type Heartbeat struct {
	At          time.Time
	TaskManager string
}

// LoseTaskManager is lifecycle.Machine.LoseTaskManager.
type LoseTaskManager struct {
	At          time.Time
	TaskManager string
	Reason      string
}

// Lead is lifecycle.Machine.Lead.
type Lead struct{ At time.Time }

// Tick is lifecycle.Machine.Tick.
type Tick struct{ At time.Time }

// Submit is a job submitted, as data; the FSM's Planner makes it a
// lifecycle.Submission.
type Submit struct {
	At   time.Time
	Job  string
	Spec []byte
	// Params are the spec's parameters.
	Params map[string]string `json:",omitempty"`
	// Parallelism and CheckpointInterval override the spec's (zero: not).
	Parallelism        int           `json:",omitempty"`
	CheckpointInterval time.Duration `json:",omitempty"`
	// Digests are the job's modules' digests, by module name.
	Digests map[string]string `json:",omitempty"`
	// CheckpointURL is the job's checkpoint storage, and CheckpointStore
	// its name as shown to users; empty for a job without checkpoints.
	CheckpointURL   string `json:",omitempty"`
	CheckpointStore string `json:",omitempty"`
	// Restore is the savepoint the first attempt restores, mapped onto the
	// job's plan, and RestoreStore the savepoint's URL.
	Restore      *ckmeta.Metadata `json:",omitempty"`
	RestoreStore string           `json:",omitempty"`
}

// TaskStatus is lifecycle.Machine.TaskStatus.
type TaskStatus struct {
	At          time.Time
	TaskManager string
	Task        lifecycle.TaskID
	State       string
	Message     string               `json:",omitempty"`
	States      []lifecycle.Declared `json:",omitempty"`
	Failure     *lifecycle.Failure   `json:",omitempty"`
}

// DeployUnreachable is lifecycle.Machine.DeployUnreachable.
type DeployUnreachable struct {
	At          time.Time
	Task        lifecycle.TaskID
	TaskManager string
	Err         string
}

// ResumeFailed is lifecycle.Machine.ResumeFailed.
type ResumeFailed struct {
	At          time.Time
	Task        lifecycle.TaskID
	TaskManager string
	Err         string
}

// Ack is lifecycle.Machine.Ack.
type Ack struct {
	At    time.Time
	Task  lifecycle.TaskID
	ID    int64
	State []byte
}

// Decline is lifecycle.Machine.Decline.
type Decline struct {
	At     time.Time
	Task   lifecycle.TaskID
	ID     int64
	Reason string
}

// MetadataWritten is lifecycle.Machine.MetadataWritten; Err is the
// write's error text, empty when it succeeded.
type MetadataWritten struct {
	At       time.Time
	Job      string
	Attempt  int
	Metadata *ckmeta.Metadata
	Err      string `json:",omitempty"`
}

// Rescale is lifecycle.Machine.Rescale.
type Rescale struct {
	At          time.Time
	Job         string
	Parallelism int            `json:",omitempty"`
	Operators   map[string]int `json:",omitempty"`
}

// SetAutoscaler is lifecycle.Machine.SetAutoscaler.
type SetAutoscaler struct {
	At     time.Time
	Job    string
	Config jobspec.Autoscaler
}

// Autoscale is lifecycle.Machine.Autoscale: a decision of the
// autoscaler, recorded and, if it changes a parallelism, applied.
type Autoscale struct {
	At       time.Time
	Job      string
	Decision autoscale.Decision
}

// Savepoint is lifecycle.Machine.Savepoint. Trigger, Dir and Stop are
// empty in logs written before savepoints were polled.
type Savepoint struct {
	At      time.Time
	Job     string
	Trigger string `json:",omitempty"`
	Dir     string `json:",omitempty"`
	Stop    bool   `json:",omitempty"`
}

// SavepointDone is lifecycle.Machine.SavepointDone: the copy of
// checkpoint ID into savepoint Trigger ended, at Path or with Failure.
type SavepointDone struct {
	At      time.Time
	Job     string
	Trigger string
	ID      int64
	Path    string `json:",omitempty"`
	Failure string `json:",omitempty"`
}

// Unpin is lifecycle.Machine.Unpin; At is only recorded.
type Unpin struct {
	At  time.Time
	Job string
	ID  int64
}

// StopWithSavepoint is lifecycle.Machine.StopWithSavepoint.
type StopWithSavepoint struct {
	At   time.Time
	Job  string
	Path string
}

// Cancel is lifecycle.Machine.Cancel.
type Cancel struct {
	At  time.Time
	Job string
}

// Module is a Wasm module, uploaded with a job or pushed on its own,
// replicated with the log so that whichever scheduler leads can serve it
// to task managers. It changes no job: the scheduler stores it by digest
// as it applies it. Journaling a module again replaces its Info.
type Module struct {
	At     time.Time
	Digest string
	Wasm   []byte
	// Info is what validating the module found, read once by the leader;
	// nil in commands journaled before modules had any.
	Info *ModuleInfo `json:",omitempty"`
}

// ModuleInfo is what the schedulers know of a module besides its bytes,
// so that a job naming it is checked without compiling it again.
type ModuleInfo struct {
	// Name is the name the module was pushed or first uploaded with.
	Name string `json:",omitempty"`
	// Functions is the module's function table, each function's kind by
	// its name; Listed tells that the module lists one at all (a module
	// built without a Floe SDK does not).
	Functions map[string]string `json:",omitempty"`
	Listed    bool              `json:",omitempty"`
}

// DropModule deletes a module, refused while a job that has not ended
// runs it.
type DropModule struct {
	At     time.Time
	Digest string
}

// Member is a scheduler of the group's addresses, journaled so that
// every member knows every other's: a follower forwards REST writes to
// the leader's REST address, and GET /v1/cluster asks each member for its
// applied index there. The leader journals its own when it takes the
// lead, and a follower's on the follower's request. It changes no job.
type Member struct {
	// ID is the member's Raft id; REST and RPC its REST API's and its
	// task managers' addresses (REST empty when it serves none).
	ID   string
	REST string `json:",omitempty"`
	RPC  string `json:",omitempty"`
}

func (Register) command()          {}
func (Heartbeat) command()         {}
func (LoseTaskManager) command()   {}
func (Lead) command()              {}
func (Tick) command()              {}
func (Submit) command()            {}
func (TaskStatus) command()        {}
func (DeployUnreachable) command() {}
func (Ack) command()               {}
func (ResumeFailed) command()      {}
func (Decline) command()           {}
func (MetadataWritten) command()   {}
func (Rescale) command()           {}
func (Savepoint) command()         {}
func (Unpin) command()             {}
func (SavepointDone) command()     {}
func (StopWithSavepoint) command() {}
func (Cancel) command()            {}
func (Module) command()            {}
func (DropModule) command()        {}
func (Member) command()            {}
func (SetAutoscaler) command()     {}
func (Autoscale) command()         {}

// types names every command in the log. A name, once written, is never
// reused for another shape.
var types = map[string]Command{
	"register": Register{}, "heartbeat": Heartbeat{}, "lose": LoseTaskManager{}, "lead": Lead{}, "tick": Tick{},
	"submit": Submit{}, "status": TaskStatus{}, "unreachable": DeployUnreachable{}, "ack": Ack{}, "decline": Decline{},
	"written": MetadataWritten{}, "rescale": Rescale{}, "savepoint": Savepoint{}, "unpin": Unpin{},
	"stop": StopWithSavepoint{}, "cancel": Cancel{}, "module": Module{},
	"member": Member{}, "dropmodule": DropModule{}, "savepointdone": SavepointDone{},
	"setautoscaler": SetAutoscaler{}, "autoscale": Autoscale{}, "resumefailed": ResumeFailed{},
}

// names is types inverted.
var names = func() map[reflect.Type]string {
	out := map[reflect.Type]string{}
	for name, c := range types {
		out[reflect.TypeOf(c)] = name
	}
	return out
}()

// envelope is a command as it is written: its type's name and its fields.
type envelope struct {
	Type string          `json:"type"`
	Cmd  json.RawMessage `json:"cmd"`
}

// ErrMalformed is wrapped by every error Decode returns.
var ErrMalformed = errors.New("journal: malformed command")

// Encode returns a command's bytes. It fails only for a type that is not
// a command of this package.
func Encode(c Command) ([]byte, error) {
	name, ok := names[reflect.TypeOf(c)]
	if !ok {
		return nil, fmt.Errorf("journal: %T is not a command", c)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("journal: encoding %s: %w", name, err)
	}
	return json.Marshal(envelope{Type: name, Cmd: b})
}

// Decode returns the command b holds. An unknown type, an unknown field
// or bytes that are not a command fail with an error that wraps
// ErrMalformed: a log written by a newer scheduler is refused, not
// half-applied.
func Decode(b []byte) (Command, error) {
	var env envelope
	if err := strict(b, &env); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	proto, ok := types[env.Type]
	if !ok {
		return nil, fmt.Errorf("%w: unknown type %q", ErrMalformed, env.Type)
	}
	if len(env.Cmd) == 0 {
		return nil, fmt.Errorf("%w: %s without its fields", ErrMalformed, env.Type)
	}
	v := reflect.New(reflect.TypeOf(proto))
	if err := strict(env.Cmd, v.Interface()); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, env.Type, err)
	}
	return v.Elem().Interface().(Command), nil
}

// strict decodes one JSON value, refusing unknown fields and trailing
// bytes.
func strict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing bytes after the command")
	}
	return nil
}
