package task

import (
	"io"
	"log/slog"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/internal/jobspec"
)

// openSource opens subtask split's share of the job's source, through the
// connector registered for its type.
func openSource(s *jobspec.Source, split connector.SplitInfo, log *slog.Logger) (connector.Source, error) {
	return connector.OpenSource(s, split, connector.Env{Logger: log})
}

// openSink opens subtask split's part of the job's sink: for a job with
// checkpoints, a transactional one when its type has one.
func openSink(s *jobspec.Sink, split connector.SplitInfo, out io.Writer, checkpointed, restored bool, log *slog.Logger) (connector.Sink, error) {
	return connector.OpenSink(s, split, connector.SinkMode{Checkpointed: checkpointed, Restored: restored},
		connector.Env{Stdout: out, Logger: log})
}
