package jobspec

import (
	"math"
	"reflect"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// RateField is the raw rate of a rate-limited source (the generator,
// nexmark): a number of records per second, or a schedule, a list of
// steps {for: 30s, rate: 20000}. A connector's raw struct holds one and
// converts it with Section.RateSchedule.
type RateField struct {
	scalar Scalar
	steps  []rawRateStep
}

type rawRateStep struct {
	For  Scalar `yaml:"for"`
	Rate Scalar `yaml:"rate"`
}

var rateFieldType = reflect.TypeFor[RateField]()

// UnmarshalYAML decodes either form; the shaper has checked which.
func (r *RateField) UnmarshalYAML(n *yaml.Node) error {
	if deref(n).Kind == yaml.SequenceNode {
		return n.Decode(&r.steps)
	}
	return n.Decode(&r.scalar)
}

// RateStep is one step of a rate schedule: Rate records per second of the
// whole source for For.
type RateStep struct {
	For  time.Duration
	Rate float64
}

// maxRateSteps bounds a schedule's steps.
const maxRateSteps = 1000

// RateSchedule converts a rate field: a number gives (rate, nil), a
// schedule (0, steps), each step's for a duration > 0 and its rate a
// number > 0; absent gives (0, nil), no limit.
func (s *Section) RateSchedule(field string, v RateField) (float64, []RateStep) {
	if v.steps == nil {
		return s.Rate(field, v.scalar), nil
	}
	path := s.Path(field)
	if len(v.steps) == 0 || len(v.steps) > maxRateSteps {
		s.p.reject(path, "a rate schedule has 1 to %d steps, got %d", maxRateSteps, len(v.steps))
		return 0, nil
	}
	steps := make([]RateStep, len(v.steps))
	for i, st := range v.steps {
		item := itemPath(path, i)
		if !st.For.set || !st.Rate.set {
			s.p.reject(item, "a step needs for (a duration) and rate (records per second), as in {for: 30s, rate: 20000}")
			continue
		}
		steps[i].For = s.p.duration(childPath(item, "for"), st.For, 0, time.Millisecond)
		r, err := strconv.ParseFloat(st.Rate.value, 64)
		if err != nil || !(r > 0) || math.IsInf(r, 0) {
			s.p.reject(childPath(item, "rate"), "must be a number > 0, got %q", st.Rate.value)
			continue
		}
		steps[i].Rate = r
	}
	return 0, steps
}

// RateNumber converts a rate field that must be a number (a source that
// takes no schedule); absent gives 0.
func (s *Section) RateNumber(field string, v RateField) float64 {
	if v.steps != nil {
		s.Reject(field, "this source takes a number of records per second; a rate schedule applies to the generator and nexmark sources")
		return 0
	}
	return s.Rate(field, v.scalar)
}
