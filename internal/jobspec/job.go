package jobspec

import (
	"slices"

	"github.com/floe-stream/floe/internal/sqlprog"
	"strconv"
	"time"
)

// Job is a parsed and validated job spec. Every field holds its effective
// value: defaults are filled in, parameters substituted and module paths made
// absolute. A Job is plain data; it is safe to read concurrently and to copy.
type Job struct {
	// Name names the job; it matches [A-Za-z0-9._-]+ and has at most 64
	// characters.
	Name string
	// Parallelism is the default parallelism of the source, every operator
	// and the sink (1 unless the spec says otherwise).
	Parallelism int
	// MaxParallelism is the number of key groups (128 unless the spec says
	// otherwise). No parallelism of the job exceeds it.
	MaxParallelism int
	// Params holds the value of every parameter that has one: the params
	// defaults overridden by --set values. It includes the secret ones,
	// which the task managers need; see Secrets.
	Params map[string]string
	// Secrets names, sorted, the parameters declared {secret: true}. Their
	// values must not be logged or shown: use Redact on any text that may
	// hold one.
	Secrets []string
	// Modules maps each declared module name to the absolute path of its
	// Wasm file, or to "" for a module the spec names by digest
	// (ModuleRefs), whose file the scheduler has.
	Modules map[string]string
	// ModuleRefs holds the modules named by digest, by module name (nil
	// for none); each is a key of Modules as well.
	ModuleRefs map[string]ModuleRef
	// Sources, Operators and Sinks are the steps of the job's dataflow
	// graph, in spec order. Each operator and sink names the steps it reads
	// in Inputs; a linear spec (source:, sink:) parses to one source, one
	// sink and operators that each read the step before (graph.go).
	Sources   []Source
	Operators []Operator
	Sinks     []Sink
	// RestartStrategy says what happens when a task fails: the spec's, or
	// when it names none, exponentialDelay with the default backoffs for a
	// job with checkpoints and none for a job without.
	RestartStrategy RestartStrategy
	// State chooses where keyed state lives.
	State State
	// Checkpoints configures periodic checkpoints; nil means the job takes
	// none.
	Checkpoints *Checkpoints
	// Autoscaler is the job's autoscaling policy; disabled unless the
	// spec's autoscaler: section enables it.
	Autoscaler Autoscaler

	// calls are the Wasm functions the spec names (Calls).
	calls []Call
	// sourcesListed and sinksListed tell that the spec lists its sources
	// under sources: and its sinks under sinks:, for field paths.
	sourcesListed, sinksListed bool
}

// SourceType is the kind of a job's source: the name its connector
// registered (RegisterSource), such as file or kafka.
type SourceType string

// Source is where a job's records come from.
type Source struct {
	Type SourceType
	// UID identifies the source in savepoints.
	UID string
	// Parallelism is the source's own parallelism, or 0 to use the job's
	// default; see Job.SourceParallelism.
	Parallelism int
	// Spec holds the settings of Type, as its connector built them: a
	// *file.SourceSpec for a file source, and so on.
	Spec SourceSpec
	// EventTime is how the source stamps records and emits watermarks;
	// nil for a job without event time.
	EventTime *EventTime
}

// Bounded reports whether the source ends by itself, as a file source that
// does not follow its file does.
func (s Source) Bounded() bool {
	return s.Spec != nil && s.Spec.Bounded()
}

// OperatorType is the kind of an operator.
type OperatorType string

// The operator types.
const (
	OperatorMap     OperatorType = "map"
	OperatorFilter  OperatorType = "filter"
	OperatorFlatMap OperatorType = "flatMap"
	OperatorKeyBy   OperatorType = "keyBy"
	OperatorProcess OperatorType = "process"
	OperatorWindow  OperatorType = "window"
	// OperatorUnion merges two or more inputs into one stream; it runs
	// no function.
	OperatorUnion OperatorType = "union"
	// OperatorCoProcess is a keyed process operator with two inputs, both
	// keyed into the job's key groups: Function runs on the records of its
	// first input and Function2 on those of its second, sharing the key's
	// state and timers.
	OperatorCoProcess OperatorType = "coProcess"
	// OperatorIntervalJoin joins two keyed inputs: a right record with
	// the left records of its key whose time is within Join's bounds of
	// its own.
	OperatorIntervalJoin OperatorType = "intervalJoin"
	// OperatorWindowJoin joins two keyed inputs window by window.
	OperatorWindowJoin OperatorType = "windowJoin"
	// OperatorSQL runs a compiled SQL program (internal/sqlprog) on each
	// record, host-side: a filter and projection over typed rows.
	OperatorSQL OperatorType = "sql"
	// OperatorSQLGroup keeps, per key, the accumulator of a SQL GROUP BY
	// without a window (SQLAggregation) and emits the key's new result row
	// for every batch that changed it: an updating result.
	OperatorSQLGroup OperatorType = "sqlGroup"
	// OperatorSQLTopN keeps, per key, the first N rows in a SQL ORDER BY
	// (SQLTopN) and emits each rank whose row a batch changed: Top-N and
	// deduplication, an updating result.
	OperatorSQLTopN OperatorType = "sqlTopN"
	// OperatorSQLOver computes, per key, SQL aggregates over a ROWS frame
	// of the key's rows in event-time order (SQLOver): one appended row per
	// input row once the watermark passes it.
	OperatorSQLOver OperatorType = "sqlOver"
)

// TwoInput reports whether operators of type t read exactly two inputs,
// each keyed, and head a stage whose task tells them apart.
func (t OperatorType) TwoInput() bool {
	return t == OperatorCoProcess || t == OperatorIntervalJoin || t == OperatorWindowJoin
}

// Keyed reports whether operators of type t keep keyed state, and so need a
// keyBy before them.
func (t OperatorType) Keyed() bool {
	return t == OperatorProcess || t == OperatorWindow || t.TwoInput() || t == OperatorSQLGroup || t == OperatorSQLTopN || t == OperatorSQLOver
}

// Operator is one step of the job's graph.
type Operator struct {
	Type OperatorType
	// UID identifies the operator in savepoints.
	UID string
	// Inputs are the uids of the sources and operators whose output the
	// operator reads: one, two or more for a union, exactly two for a
	// coProcess and a join (left, then right).
	Inputs []string
	// Parallelism is the operator's own parallelism, or 0 to use the job's
	// default; see Job.OperatorParallelism.
	Parallelism int
	// Module is a key of Job.Modules and Function an exported function of
	// that module. Both are set for map, filter, flatMap, process and
	// coProcess, and for a keyBy whose key is KeyFunction; otherwise both
	// are empty.
	Module   string
	Function string
	// Function2 is the function a coProcess runs on the records of its
	// second input; empty for every other operator type.
	Function2 string
	// Broadcast is, for a coProcess with a broadcast input, the uid of
	// that input (one of Inputs): its records go to every subtask and
	// its function may write broadcast state (broadcast.go). Empty
	// otherwise.
	Broadcast string
	// Key says how a keyBy derives each record's key; it is the zero
	// KeySelector for every other operator type.
	Key KeySelector
	// Window is set for a window operator, whose Function is an aggregate
	// or a window process function, and for a windowJoin, whose windows
	// it shapes (its LateOutput is Join's).
	Window *Window
	// Join is set for an intervalJoin and a windowJoin; their Module and
	// Function, when set, name the Wasm join function (a flatMap over
	// framed pairs), and the built-in concatenation runs otherwise.
	Join *Join
	// SQL is the program of a sql operator; nil for every other type.
	SQL *sqlprog.Program
	// SQLAggregation is the built-in aggregate function of a window that
	// names sql: instead of a module's function, or of a sqlGroup; nil
	// otherwise.
	SQLAggregation *sqlprog.Aggregation
	// SQLTopN is the ranking of a sqlTopN, or of a window Top-N (a window
	// whose sql: ranks its rows); nil otherwise.
	SQLTopN *sqlprog.TopN
	// SQLOver is the frame aggregation of a sqlOver; nil otherwise.
	SQLOver *sqlprog.Over
	// SideOutputs routes the operator's named side outputs, through
	// stateless operators, to sinks; records sent to other side outputs
	// are dropped and counted.
	SideOutputs map[string]SideOutput
}

// KeyKind is how a keyBy derives a record's key.
type KeyKind string

// The key kinds.
const (
	// KeyValue keys a record by its whole value.
	KeyValue KeyKind = "value"
	// KeyCSV keys a record by one of its comma-separated fields.
	KeyCSV KeyKind = "csv"
	// KeyFunction keys a record by what a Wasm key selector returns.
	KeyFunction KeyKind = "function"
	// KeyRow keys an encoded SQL row (internal/sqlrow) by its first Field
	// values: the bytes of that prefix.
	KeyRow KeyKind = "row"
	// KeyRowText keys an encoded SQL row by the CSV text of its first
	// Field values (internal/sqlrow.AppendCSV): a SQL materialized view's
	// rows are looked up by their GROUP BY values as a person types them
	// ("apple", "apple,3").
	KeyRowText KeyKind = "text"
)

// KeySelector is a parsed keyBy key.
type KeySelector struct {
	Kind KeyKind
	// Field is the 0-based field index of a KeyCSV selector, and the
	// number of leading values of a KeyRow one.
	Field int
}

// String returns the selector as a spec writes it: value, csv:N, row:N, text:N or function.
func (k KeySelector) String() string {
	if k.Kind == KeyCSV || k.Kind == KeyRow || k.Kind == KeyRowText {
		return string(k.Kind) + ":" + strconv.Itoa(k.Field)
	}
	return string(k.Kind)
}

// SinkType is the kind of a job's sink: the name its connector registered
// (RegisterSink), such as file or stdout.
type SinkType string

// Sink is where a job's records go.
type Sink struct {
	Type SinkType
	// UID identifies the sink in savepoints.
	UID string
	// Inputs are the uids of the sources and operators whose output the
	// sink writes: one or more. A side output's sink has none.
	Inputs []string
	// Parallelism is the sink's own parallelism, or 0 to use the job's
	// default; see Job.SinkParallelism.
	Parallelism int
	// Spec holds the settings of Type, as its connector built them: a
	// *file.SinkSpec for a file sink, and so on.
	Spec SinkSpec
}

// RestartType is a restart strategy.
type RestartType string

// The restart strategies.
const (
	// RestartNone fails the job on the first task failure.
	RestartNone RestartType = "none"
	// RestartFixedDelay restarts the job from its last checkpoint up to
	// Attempts times, waiting Delay before each restart.
	RestartFixedDelay RestartType = "fixedDelay"
	// RestartExponentialDelay restarts the job from its last checkpoint
	// with no limit on attempts, waiting InitialBackoff before the first
	// restart and twice as long before each consecutive one, at most
	// MaxBackoff. An attempt that has run for ResetAfter before it fails
	// starts the sequence again from InitialBackoff. It is the default of
	// a job with checkpoints, as in Flink.
	RestartExponentialDelay RestartType = "exponentialDelay"
)

// RestartStrategy says what happens when a task fails. Attempts and Delay are
// zero unless Type is RestartFixedDelay; InitialBackoff, MaxBackoff and
// ResetAfter are zero unless Type is RestartExponentialDelay.
type RestartStrategy struct {
	Type     RestartType
	Attempts int
	Delay    time.Duration

	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	ResetAfter     time.Duration

	// Default tells that the spec names no restartStrategy: this is the
	// default for the job's checkpoints, which WithCheckpointInterval
	// changes when it turns them on.
	Default bool
}

// Backoff returns the wait before the n-th consecutive restart (n >= 1)
// under RestartExponentialDelay: InitialBackoff doubled n-1 times, at
// most MaxBackoff.
func (r RestartStrategy) Backoff(n int) time.Duration {
	d := r.InitialBackoff
	for i := 1; i < n; i++ {
		if d > r.MaxBackoff/2 {
			return r.MaxBackoff
		}
		d *= 2
	}
	return min(d, r.MaxBackoff)
}

// StateBackend is where keyed state lives.
type StateBackend string

// The state backends.
const (
	StateMemory StateBackend = "memory"
	StatePebble StateBackend = "pebble"
)

// State configures keyed state.
type State struct {
	Backend StateBackend
	// OpenToViewers names, sorted, the queryable states that users with
	// the viewer role may read over the REST API (state.readableBy:
	// {NAME: viewer}); the others need the operator role.
	OpenToViewers []string
}

// OpenToViewer reports whether users with the viewer role may read the
// queryable state name.
func (s State) OpenToViewer(name string) bool {
	_, ok := slices.BinarySearch(s.OpenToViewers, name)
	return ok
}

// Checkpoints configures periodic checkpoints.
type Checkpoints struct {
	// Interval is the time between the starts of two checkpoints.
	Interval time.Duration
	// Timeout aborts a checkpoint that has not completed in time.
	Timeout time.Duration
	// MinPause is the least time between the end of one checkpoint and the
	// start of the next.
	MinPause time.Duration
	// MaxConcurrent is the most checkpoints in flight at once.
	MaxConcurrent int
	// Retain is the number of completed checkpoints kept.
	Retain int
	// Storage is where checkpoints go (file:///path or s3://bucket/prefix);
	// empty means the cluster's default.
	Storage string
}
