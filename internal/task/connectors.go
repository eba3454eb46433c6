package task

import (
	"fmt"

	"github.com/floe-stream/floe/internal/connector"
	"github.com/floe-stream/floe/internal/connector/file"
	"github.com/floe-stream/floe/internal/connector/generator"
	"github.com/floe-stream/floe/internal/connector/stdout"
	"github.com/floe-stream/floe/internal/jobspec"
)

// openSource opens subtask split's share of the job's source.
func openSource(s *jobspec.Source, split connector.SplitInfo) (connector.Source, error) {
	switch {
	case s.File != nil:
		return file.OpenSource(file.SourceConfig{Path: s.File.Path, Rate: s.File.Rate, Follow: s.File.Follow}, split)
	case s.Generator != nil:
		g := s.Generator
		return generator.NewSource(generator.Config{
			Count: g.Count, Rate: g.Rate, Kind: string(g.Kind), Keys: int(g.Keys), Size: g.Size,
		}, split)
	}
	return nil, fmt.Errorf("source %s: unsupported type %q", s.UID, s.Type)
}

// openSink opens subtask split's part of the job's sink: for a file sink of
// a job with checkpoints, the transactional one.
func openSink(s *jobspec.Sink, split connector.SplitInfo, out *stdout.Writer, checkpointed, restored bool) (connector.Sink, error) {
	switch s.Type {
	case jobspec.SinkFile:
		if checkpointed {
			return file.OpenTransactionalSink(file.SinkConfig{Path: s.File.Path}, split, restored)
		}
		return file.OpenSink(file.SinkConfig{Path: s.File.Path}, split)
	case jobspec.SinkStdout:
		return stdout.NewSink(stdout.Config{Out: out})
	}
	return nil, fmt.Errorf("sink %s: unsupported type %q", s.UID, s.Type)
}
