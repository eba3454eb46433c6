package plan

import "github.com/floe-stream/floe/internal/jobspec"

// The plan's tests register stand-ins for the generator and file sources
// and the stdout and file sinks that their specs name: internal/ imports nothing from host/,
// where the real connectors live, and the planner reads nothing but a
// source's and a sink's common fields.
func init() {
	jobspec.RegisterSource("generator", func(s *jobspec.Section, r *struct {
		Count jobspec.Scalar `yaml:"count"`
	}) jobspec.SourceSpec {
		return testSource{count: s.Integer("count", r.Count, 0, 0, 1<<62)}
	})
	jobspec.RegisterSink("stdout", true, func(*jobspec.Section, *struct{}) jobspec.SinkSpec { return struct{}{} })
	// file stands in for the file source and sink of docs/jobs.md's
	// example.
	type path struct {
		Path jobspec.Scalar `yaml:"path"`
	}
	jobspec.RegisterSource("file", func(*jobspec.Section, *path) jobspec.SourceSpec { return testSource{count: 1} })
	jobspec.RegisterSink("file", true, func(*jobspec.Section, *path) jobspec.SinkSpec { return struct{}{} })
}

// testSource is the stand-in generator's spec.
type testSource struct{ count int64 }

func (s testSource) Bounded() bool { return s.count > 0 }
