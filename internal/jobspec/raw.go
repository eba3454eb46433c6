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
	Name            scalar            `yaml:"name"`
	Parallelism     scalar            `yaml:"parallelism"`
	MaxParallelism  scalar            `yaml:"maxParallelism"`
	Params          map[string]scalar `yaml:"params"`
	Modules         map[string]scalar `yaml:"modules"`
	Source          *rawSource        `yaml:"source"`
	Operators       []rawOperator     `yaml:"operators"`
	Sink            *rawSink          `yaml:"sink"`
	RestartStrategy *rawRestart       `yaml:"restartStrategy"`
	State           *rawState         `yaml:"state"`
	Checkpoints     *rawCheckpoints   `yaml:"checkpoints"`
}

// rawSource holds the fields of every source type; build.go rejects those
// that do not belong to the chosen type.
type rawSource struct {
	Type        scalar         `yaml:"type"`
	UID         scalar         `yaml:"uid"`
	Parallelism scalar         `yaml:"parallelism"`
	Path        scalar         `yaml:"path"`
	Rate        scalar         `yaml:"rate"`
	Follow      scalar         `yaml:"follow"`
	Count       scalar         `yaml:"count"`
	Kind        scalar         `yaml:"kind"`
	Keys        scalar         `yaml:"keys"`
	Size        scalar         `yaml:"size"`
	Timestamps  *rawTimestamps `yaml:"timestamps"`
	Watermarks  *rawWatermarks `yaml:"watermarks"`
	// Kafka (kafka.go).
	Brokers           scalar   `yaml:"brokers"`
	Topics            scalar   `yaml:"topics"`
	TopicPattern      scalar   `yaml:"topicPattern"`
	Group             scalar   `yaml:"group"`
	StartFrom         scalar   `yaml:"startFrom"`
	Format            scalar   `yaml:"format"`
	Isolation         scalar   `yaml:"isolation"`
	DiscoveryInterval scalar   `yaml:"discoveryInterval"`
	SASL              *rawSASL `yaml:"sasl"`
	TLS               *rawTLS  `yaml:"tls"`
	// Nexmark (nexmark.go).
	EventsPerSecond scalar `yaml:"eventsPerSecond"`
	Seed            scalar `yaml:"seed"`
}

type rawOperator struct {
	Type        scalar `yaml:"type"`
	UID         scalar `yaml:"uid"`
	Parallelism scalar `yaml:"parallelism"`
	Module      scalar `yaml:"module"`
	Function    scalar `yaml:"function"`
	Key         scalar `yaml:"key"`
	// Window operators (window.go) and side outputs.
	Window          *rawWindow                `yaml:"window"`
	Time            scalar                    `yaml:"time"`
	AllowedLateness scalar                    `yaml:"allowedLateness"`
	LateOutput      scalar                    `yaml:"lateOutput"`
	Aggregate       scalar                    `yaml:"aggregate"`
	Process         scalar                    `yaml:"process"`
	SideOutputs     map[string]*rawSideOutput `yaml:"sideOutputs"`
}

type rawSink struct {
	Type        scalar `yaml:"type"`
	UID         scalar `yaml:"uid"`
	Parallelism scalar `yaml:"parallelism"`
	Path        scalar `yaml:"path"`
	// Kafka (kafka.go).
	Brokers               scalar   `yaml:"brokers"`
	Topic                 scalar   `yaml:"topic"`
	Semantic              scalar   `yaml:"semantic"`
	Key                   scalar   `yaml:"key"`
	TransactionalIDPrefix scalar   `yaml:"transactionalIdPrefix"`
	TransactionTimeout    scalar   `yaml:"transactionTimeout"`
	SASL                  *rawSASL `yaml:"sasl"`
	TLS                   *rawTLS  `yaml:"tls"`
}

type rawSASL struct {
	Mechanism scalar `yaml:"mechanism"`
	Username  scalar `yaml:"username"`
	Password  scalar `yaml:"password"`
}

type rawTLS struct {
	CAFile             scalar `yaml:"caFile"`
	CertFile           scalar `yaml:"certFile"`
	KeyFile            scalar `yaml:"keyFile"`
	ServerName         scalar `yaml:"serverName"`
	InsecureSkipVerify scalar `yaml:"insecureSkipVerify"`
}

type rawRestart struct {
	Type     scalar `yaml:"type"`
	Attempts scalar `yaml:"attempts"`
	Delay    scalar `yaml:"delay"`
}

type rawState struct {
	Backend scalar `yaml:"backend"`
}

type rawCheckpoints struct {
	Interval      scalar `yaml:"interval"`
	Timeout       scalar `yaml:"timeout"`
	MinPause      scalar `yaml:"minPause"`
	MaxConcurrent scalar `yaml:"maxConcurrent"`
	Retain        scalar `yaml:"retain"`
	Storage       scalar `yaml:"storage"`
}

// scalar is the text of one YAML scalar, uninterpreted. A field that is
// absent or null stays the zero scalar, which is not set.
type scalar struct {
	value string
	set   bool
}

// UnmarshalYAML keeps the node's text. The shape phase has already made sure
// that n is a scalar.
func (s *scalar) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a single value", n.Line)
	}
	*s = scalar{value: n.Value, set: true}
	return nil
}
