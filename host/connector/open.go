package connector

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/floe-stream/floe/internal/jobspec"
)

// Env is what a connector takes from the process that opens it.
type Env struct {
	// Stdout receives the lines of the process's stdout sinks. Several
	// sinks write to it at once, so its Write must be safe for concurrent
	// use and write each call whole (stdout.NewWriter makes such a writer);
	// nil means os.Stdout.
	Stdout io.Writer
	// Logger receives the connector's logs; nil means slog.Default().
	Logger *slog.Logger
}

// logger returns e.Logger, or the default logger.
func (e Env) logger() *slog.Logger {
	if e.Logger == nil {
		return slog.Default()
	}
	return e.Logger
}

// SinkMode says how the job around a sink runs.
type SinkMode struct {
	// Checkpointed is set when the job takes checkpoints: a sink that can
	// then opens as a Transactional one.
	Checkpointed bool
	// Restored is set when the subtask restores a checkpoint: the sink is
	// about to be given Recover.
	Restored bool
}

// SourceOpener is a jobspec.SourceSpec that can open the source it
// describes. Every source type's connector package builds its specs as
// SourceOpeners, which is how the task opens a source of any type without
// importing its package.
type SourceOpener interface {
	jobspec.SourceSpec
	// OpenSource opens subtask split's share of the source.
	OpenSource(split SplitInfo, env Env) (Source, error)
}

// SinkOpener is a jobspec.SinkSpec that can open the sink it describes, as
// SourceOpener is for sources.
type SinkOpener interface {
	// OpenSink opens subtask split's part of the sink.
	OpenSink(split SplitInfo, mode SinkMode, env Env) (Sink, error)
}

// OpenSource opens subtask split's share of the source s. It fails when the
// connector of s's type is not linked into the program, which cannot happen
// for a spec that this process parsed.
func OpenSource(s *jobspec.Source, split SplitInfo, env Env) (Source, error) {
	o, ok := s.Spec.(SourceOpener)
	if !ok {
		return nil, fmt.Errorf("source %s: unsupported type %q", s.UID, s.Type)
	}
	env.Logger = env.logger()
	return o.OpenSource(split, env)
}

// OpenSink opens subtask split's part of the sink s, as OpenSource does a
// source.
func OpenSink(s *jobspec.Sink, split SplitInfo, mode SinkMode, env Env) (Sink, error) {
	o, ok := s.Spec.(SinkOpener)
	if !ok {
		return nil, fmt.Errorf("sink %s: unsupported type %q", s.UID, s.Type)
	}
	env.Logger = env.logger()
	return o.OpenSink(split, mode, env)
}
