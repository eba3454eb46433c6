package file

import (
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/internal/jobspec"
)

// This file is the file connector's part of a job spec: source and sink
// sections of type file (docs/jobs.md), and how they open.

func init() {
	jobspec.RegisterSource("file", parseSource)
	jobspec.RegisterSink("file", true, parseSink)
}

// SourceSpec is a job spec's file source: it reads a text file one line per
// record.
type SourceSpec struct {
	// Path is the file to read, as written in the spec; a relative path is
	// relative to the working directory of the process that reads it.
	Path string
	// Rate caps the records per second of the whole source; 0 means no cap.
	Rate float64
	// Follow keeps reading lines appended to the file, like tail -f, which
	// makes the job unbounded. One subtask reads a followed file; the
	// others idle.
	Follow bool
}

type rawSource struct {
	Path   jobspec.Scalar    `yaml:"path"`
	Rate   jobspec.RateField `yaml:"rate"`
	Follow jobspec.Scalar    `yaml:"follow"`
}

func parseSource(s *jobspec.Section, r *rawSource) jobspec.SourceSpec {
	path, _ := s.Text("path", r.Path)
	return &SourceSpec{
		Path:   path,
		Rate:   s.RateNumber("rate", r.Rate),
		Follow: s.Bool("follow", r.Follow, false),
	}
}

// Bounded implements jobspec.SourceSpec: a file source ends unless it
// follows its file.
func (s *SourceSpec) Bounded() bool { return !s.Follow }

// FollowNote is what a follow-mode source of more than one subtask logs, as
// a warning, from its subtask 1 when it opens.
const FollowNote = "a followed file is read by one subtask only; the source's other subtasks idle (give the source parallelism: 1)"

// OpenSource implements connector.SourceOpener. A followed file is read by
// one subtask only (see the package doc), which the source says once, from
// subtask 1, when it has more.
func (s *SourceSpec) OpenSource(split connector.SplitInfo, env connector.Env) (connector.Source, error) {
	src, err := OpenSource(SourceConfig{Path: s.Path, Rate: s.Rate, Follow: s.Follow}, split)
	if err == nil && s.Follow && split.Subtask == 1 && env.Logger != nil {
		env.Logger.Warn(FollowNote, "path", s.Path, "parallelism", split.Parallelism)
	}
	return src, err
}

// SinkSpec is a job spec's file sink: it writes one part file per sink
// subtask into a directory.
type SinkSpec struct {
	// Path is the directory, as written in the spec.
	Path string
	// FlushInterval is the longest a line waits before it reaches its part
	// file in a job without checkpoints; 0, when the spec leaves it out,
	// means DefaultFlushInterval.
	FlushInterval time.Duration
	// Buckets, when its Format is set, writes each record into the
	// subdirectory its event time names (spec field buckets: {format,
	// maxOpen}).
	Buckets Buckets
}

// MinFlushInterval is the least flushInterval a spec may set.
const MinFlushInterval = time.Millisecond

type rawSink struct {
	Path          jobspec.Scalar `yaml:"path"`
	FlushInterval jobspec.Scalar `yaml:"flushInterval"`
	Buckets       *rawBuckets    `yaml:"buckets"`
}

type rawBuckets struct {
	Format  jobspec.Scalar `yaml:"format"`
	MaxOpen jobspec.Scalar `yaml:"maxOpen"`
}

func parseSink(s *jobspec.Section, r *rawSink) jobspec.SinkSpec {
	path, _ := s.Text("path", r.Path)
	return &SinkSpec{
		Path:          path,
		FlushInterval: s.Duration("flushInterval", r.FlushInterval, 0, MinFlushInterval),
		Buckets:       parseBuckets(s, r.Buckets),
	}
}

// parseBuckets converts a sink's buckets section; absent, it gives none.
func parseBuckets(s *jobspec.Section, r *rawBuckets) Buckets {
	if r == nil {
		return Buckets{}
	}
	format, ok := s.Text("buckets.format", r.Format)
	if ok {
		if err := CheckBucketFormat(format); err != nil {
			s.Add("buckets.format", "must be a Go time layout such as \"dt=2006-01-02/hm=15:04\" that gives a relative path: %v", err)
			format = ""
		}
	}
	return Buckets{
		Format:  format,
		MaxOpen: int(s.Integer("buckets.maxOpen", r.MaxOpen, DefaultMaxOpenBuckets, 1, MaxOpenBucketsLimit)),
	}
}

// OpenSink implements connector.SinkOpener: the sink of a job with
// checkpoints is the transactional one, whose output appears when a
// checkpoint completes, whatever FlushInterval says.
func (s *SinkSpec) OpenSink(split connector.SplitInfo, mode connector.SinkMode, _ connector.Env) (connector.Sink, error) {
	cfg := SinkConfig{Path: s.Path, FlushInterval: s.FlushInterval, Buckets: s.Buckets}
	if mode.Checkpointed {
		return OpenTransactionalSink(cfg, split, mode.Restored)
	}
	return OpenSink(cfg, split)
}

// LocalPaths implements jobspec.LocalPather: a file source reads its file.
func (s *SourceSpec) LocalPaths() []jobspec.LocalPath {
	return []jobspec.LocalPath{{Field: "path", Path: s.Path}}
}

// LocalPaths implements jobspec.LocalPather: a file sink writes into its
// directory.
func (s *SinkSpec) LocalPaths() []jobspec.LocalPath {
	return []jobspec.LocalPath{{Field: "path", Path: s.Path, Write: true}}
}
