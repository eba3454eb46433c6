package generator

import (
	"fmt"
	"math"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/ratelimit"
)

// The kinds of generator.
const (
	KindSequence = "sequence"
	KindRandom   = "random"
)

// Config configures a generator source.
type Config struct {
	// Count is the total number of records across all subtasks; 0 means
	// unbounded.
	Count int64
	// Rate caps the records per second of the whole generator; 0 means
	// unlimited.
	Rate float64
	// Schedule, when set instead of Rate, changes the rate in steps
	// (ratelimit.Schedule): each split follows it by the records it has
	// emitted, so a restored or rescaled source goes on where it was.
	Schedule ratelimit.Schedule
	// Kind is KindSequence or KindRandom; empty means KindSequence.
	Kind string
	// Keys is the number of distinct keys of a random generator.
	Keys int
	// Size is the approximate size in bytes of a random generator's values;
	// a value is never shorter than its "key-000123," prefix.
	Size int
	// Seed seeds a random generator; each subtask derives its own stream
	// from it.
	Seed uint64
	// Clock paces the rate limit; nil means the system clock.
	Clock connector.Clock
}

// validate reports the first field of c that is out of range.
func (c Config) validate() error {
	switch {
	case c.Count < 0:
		return fmt.Errorf("generator: count %d is negative", c.Count)
	case c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return fmt.Errorf("generator: rate %v is not a non-negative number", c.Rate)
	case c.Rate > 0 && len(c.Schedule) > 0:
		return fmt.Errorf("generator: give a rate or a schedule, not both")
	case !validSchedule(c.Schedule):
		return fmt.Errorf("generator: every step of a rate schedule needs a duration and a rate > 0")
	case c.Kind != "" && c.Kind != KindSequence && c.Kind != KindRandom:
		return fmt.Errorf("generator: unknown kind %q, want %q or %q", c.Kind, KindSequence, KindRandom)
	case c.Kind == KindRandom && c.Keys < 1:
		return fmt.Errorf("generator: kind %q needs keys >= 1, got %d", KindRandom, c.Keys)
	case c.Size < 0:
		return fmt.Errorf("generator: size %d is negative", c.Size)
	}
	return nil
}

func validSchedule(s ratelimit.Schedule) bool {
	for _, st := range s {
		if st.For <= 0 || !(st.Rate > 0) || math.IsInf(st.Rate, 0) {
			return false
		}
	}
	return true
}
