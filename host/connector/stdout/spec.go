package stdout

import (
	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/internal/jobspec"
)

// This file is the stdout sink's part of a job spec: sink sections of type
// stdout (docs/jobs.md), which have no fields of their own.

func init() { jobspec.RegisterSink("stdout", true, parse) }

// Spec is a job spec's stdout sink.
type Spec struct{}

func parse(*jobspec.Section, *struct{}) jobspec.SinkSpec { return &Spec{} }

// OpenSink implements connector.SinkOpener: the sink writes to env.Stdout,
// which the process's stdout sinks share.
func (*Spec) OpenSink(_ connector.SplitInfo, _ connector.SinkMode, env connector.Env) (connector.Sink, error) {
	return NewSink(Config{Out: env.Stdout})
}
