package generator

import (
	"math"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/ratelimit"
	"github.com/floe-stream/floe/internal/jobspec"
)

// This file is the generator's part of a job spec: source sections of type
// generator (docs/jobs.md), and how they open.

func init() { jobspec.RegisterSource("generator", parse) }

// Spec is a job spec's generator source: synthetic records, for tests and
// benchmarks.
type Spec struct {
	// Count is the number of records of the whole source; 0 means no end.
	Count int64
	// Rate caps the records per second of the whole source; 0 means no cap.
	Rate float64
	// Schedule is the spec's rate schedule, when its rate is a list of
	// steps; Rate is then 0.
	Schedule []jobspec.RateStep
	// Kind is KindSequence or KindRandom.
	Kind string
	// Keys is the number of distinct values of a random generator (1000
	// unless the spec says otherwise); 0 for a sequence.
	Keys int64
	// Size is the approximate size in bytes of a random record (16 unless
	// the spec says otherwise); 0 for a sequence.
	Size int
}

// maxRecordSize is the largest size of a random generator's records.
const maxRecordSize = 1 << 20

type raw struct {
	Rate  jobspec.RateField `yaml:"rate"`
	Count jobspec.Scalar    `yaml:"count"`
	Kind  jobspec.Scalar    `yaml:"kind"`
	Keys  jobspec.Scalar    `yaml:"keys"`
	Size  jobspec.Scalar    `yaml:"size"`
}

func parse(s *jobspec.Section, r *raw) jobspec.SourceSpec {
	g := &Spec{
		Count: s.Integer("count", r.Count, 0, 0, math.MaxInt64),
		Kind:  s.Choice("kind", r.Kind, "generator kind", KindSequence, KindSequence, KindRandom),
	}
	g.Rate, g.Schedule = s.RateSchedule("rate", r.Rate)
	switch g.Kind {
	case KindRandom:
		g.Keys = s.Integer("keys", r.Keys, 1000, 1, math.MaxInt64)
		g.Size = int(s.Integer("size", r.Size, 16, 1, maxRecordSize))
	case KindSequence:
		s.Only("keys", r.Keys, "kind random")
		s.Only("size", r.Size, "kind random")
	}
	return g
}

// Bounded implements jobspec.SourceSpec: a generator with a count ends.
func (g *Spec) Bounded() bool { return g.Count > 0 }

// ConfiguredRate implements jobspec.RateLimited: the autoscaler's input
// rate of the source. A schedule has none the scheduler could know (its
// steps follow the records emitted): the autoscaler then goes by the rate
// observed.
func (g *Spec) ConfiguredRate() float64 { return g.Rate }

// OpenSource implements connector.SourceOpener.
func (g *Spec) OpenSource(split connector.SplitInfo, _ connector.Env) (connector.Source, error) {
	return NewSource(Config{Count: g.Count, Rate: g.Rate, Schedule: schedule(g.Schedule), Kind: g.Kind, Keys: int(g.Keys), Size: g.Size}, split)
}

// schedule converts a spec's rate schedule.
func schedule(steps []jobspec.RateStep) ratelimit.Schedule {
	var s ratelimit.Schedule
	for _, st := range steps {
		s = append(s, ratelimit.Step{For: st.For, Rate: st.Rate})
	}
	return s
}
