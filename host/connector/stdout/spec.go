package stdout

import (
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/internal/jobspec"
)

// This file is the stdout sink's part of a job spec: sink sections of type
// stdout (docs/jobs.md), whose one field of its own is flushInterval.

func init() { jobspec.RegisterSink("stdout", true, parse) }

// Spec is a job spec's stdout sink.
type Spec struct {
	// FlushInterval is the longest a line waits before it is written; 0,
	// when the spec leaves it out, means DefaultFlushInterval.
	FlushInterval time.Duration
}

// MinFlushInterval is the least flushInterval a spec may set.
const MinFlushInterval = time.Millisecond

type raw struct {
	FlushInterval jobspec.Scalar `yaml:"flushInterval"`
}

func parse(s *jobspec.Section, r *raw) jobspec.SinkSpec {
	return &Spec{FlushInterval: s.Duration("flushInterval", r.FlushInterval, 0, MinFlushInterval)}
}

// OpenSink implements connector.SinkOpener: the sink writes to env.Stdout,
// which the process's stdout sinks share. Checkpoints change nothing: the
// stdout sink writes at least once either way.
func (s *Spec) OpenSink(_ connector.SplitInfo, _ connector.SinkMode, env connector.Env) (connector.Sink, error) {
	return NewSink(Config{Out: env.Stdout, FlushInterval: s.FlushInterval})
}
