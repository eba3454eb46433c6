package plan

import "github.com/floe-stream/floe/internal/jobspec"

// The plan's tests register stand-ins for the generator source and the
// stdout sink that their specs name: internal/ imports nothing from host/,
// where the real connectors live, and the planner reads nothing but a
// source's and a sink's common fields.
func init() {
	jobspec.RegisterSource("generator", func(s *jobspec.Section, r *struct {
		Count jobspec.Scalar `yaml:"count"`
	}) jobspec.SourceSpec {
		return testSource{count: s.Integer("count", r.Count, 0, 0, 1<<62)}
	})
	jobspec.RegisterSink("stdout", true, func(*jobspec.Section, *struct{}) jobspec.SinkSpec { return struct{}{} })
}

// testSource is the stand-in generator's spec.
type testSource struct{ count int64 }

func (s testSource) Bounded() bool { return s.count > 0 }
