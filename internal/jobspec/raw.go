package jobspec

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// The raw types mirror the spec's layout field by field; their yaml tags are
// the only list of field names, used both to decode and, by the shape phase,
// to reject unknown fields. Every leaf is a scalar, so that converting text to
// numbers, bools and durations happens in build.go with messages that name
// the field, and never by YAML's own resolution rules.

type rawJob struct {
	Name            Scalar              `yaml:"name"`
	Parallelism     Scalar              `yaml:"parallelism"`
	MaxParallelism  Scalar              `yaml:"maxParallelism"`
	Params          map[string]rawParam `yaml:"params"`
	Modules         map[string]Scalar   `yaml:"modules"`
	Source          *rawSource          `yaml:"source"`
	Sources         []*rawSource        `yaml:"sources"`
	Operators       []rawOperator       `yaml:"operators"`
	Sink            *rawSink            `yaml:"sink"`
	Sinks           []*rawSink          `yaml:"sinks"`
	RestartStrategy *rawRestart         `yaml:"restartStrategy"`
	State           *rawState           `yaml:"state"`
	Checkpoints     *rawCheckpoints     `yaml:"checkpoints"`
	Autoscaler      *rawAutoscaler      `yaml:"autoscaler"`
}

// rawSource is a source section: the fields that every source has, and the
// node that the connector of its type decodes its own fields from
// (connectors.go). The shape phase knows the fields of every registered
// source type.
type rawSource struct {
	Type        Scalar         `yaml:"type"`
	UID         Scalar         `yaml:"uid"`
	Parallelism Scalar         `yaml:"parallelism"`
	Timestamps  *rawTimestamps `yaml:"timestamps"`
	Watermarks  *rawWatermarks `yaml:"watermarks"`
	node        *yaml.Node
}

// UnmarshalYAML decodes the common fields and keeps the section's node.
func (r *rawSource) UnmarshalYAML(n *yaml.Node) error {
	type plain rawSource
	r.node = n
	return n.Decode((*plain)(r))
}

type rawOperator struct {
	Type        Scalar `yaml:"type"`
	UID         Scalar `yaml:"uid"`
	Parallelism Scalar `yaml:"parallelism"`
	Module      Scalar `yaml:"module"`
	Function    Scalar `yaml:"function"`
	// Functions names a coProcess's two functions, one per input.
	Functions []Scalar `yaml:"functions"`
	// Broadcast names the input of a coProcess sent whole to every
	// subtask (broadcast.go).
	Broadcast Scalar `yaml:"broadcast"`
	Key       Scalar `yaml:"key"`
	// Input and Inputs name the steps the operator reads (graph.go).
	Input  Scalar   `yaml:"input"`
	Inputs []Scalar `yaml:"inputs"`
	// Window operators (window.go) and side outputs.
	Window          *rawWindow                `yaml:"window"`
	Time            Scalar                    `yaml:"time"`
	AllowedLateness Scalar                    `yaml:"allowedLateness"`
	LateOutput      Scalar                    `yaml:"lateOutput"`
	Aggregate       Scalar                    `yaml:"aggregate"`
	Process         Scalar                    `yaml:"process"`
	SideOutputs     map[string]*rawSideOutput `yaml:"sideOutputs"`
	// Joins (join.go): an intervalJoin's bounds, a windowJoin's kind, and
	// the separator of the built-in concatenation.
	Between   []Scalar `yaml:"between"`
	Join      Scalar   `yaml:"join"`
	Separator Scalar   `yaml:"separator"`
	// SQL is the JSON program of a sql operator, or the aggregation of a
	// SQL window (sql.go).
	SQL Scalar `yaml:"sql"`
}

// rawSink is a sink section, as rawSource is a source section.
type rawSink struct {
	Type        Scalar   `yaml:"type"`
	UID         Scalar   `yaml:"uid"`
	Parallelism Scalar   `yaml:"parallelism"`
	Input       Scalar   `yaml:"input"`
	Inputs      []Scalar `yaml:"inputs"`
	node        *yaml.Node
}

// UnmarshalYAML decodes the common fields and keeps the section's node.
func (r *rawSink) UnmarshalYAML(n *yaml.Node) error {
	type plain rawSink
	r.node = n
	return n.Decode((*plain)(r))
}

type rawRestart struct {
	Type           Scalar `yaml:"type"`
	Attempts       Scalar `yaml:"attempts"`
	Delay          Scalar `yaml:"delay"`
	InitialBackoff Scalar `yaml:"initialBackoff"`
	MaxBackoff     Scalar `yaml:"maxBackoff"`
	ResetAfter     Scalar `yaml:"resetAfter"`
}

type rawState struct {
	Backend    Scalar            `yaml:"backend"`
	ReadableBy map[string]Scalar `yaml:"readableBy"`
}

type rawCheckpoints struct {
	Interval      Scalar `yaml:"interval"`
	Timeout       Scalar `yaml:"timeout"`
	MinPause      Scalar `yaml:"minPause"`
	MaxConcurrent Scalar `yaml:"maxConcurrent"`
	Retain        Scalar `yaml:"retain"`
	Storage       Scalar `yaml:"storage"`
}

// rawParam is one parameter under params: a default value, or {secret: true}
// for a secret that --set gives. params.go reads the section from the node
// tree; decoding keeps nothing.
type rawParam struct {
	Secret Scalar `yaml:"secret"`
}

// UnmarshalYAML accepts both forms of a parameter, which the shape phase has
// already checked.
func (*rawParam) UnmarshalYAML(*yaml.Node) error { return nil }

// Scalar is the text of one YAML scalar, uninterpreted. A field that is
// absent or null stays the zero Scalar, which is not set. The raw structs of
// connector sections (RegisterSource) hold Scalars, which a Section converts.
type Scalar struct {
	value string
	set   bool
}

// UnmarshalYAML keeps the node's text. The shape phase has already made sure
// that n is a scalar.
func (s *Scalar) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a single value", n.Line)
	}
	*s = Scalar{value: n.Value, set: true}
	return nil
}

// IsSet reports whether the spec sets the field, possibly to "".
func (s Scalar) IsSet() bool { return s.set }

// Value returns the field's text, "" when it is not set.
func (s Scalar) Value() string { return s.value }
