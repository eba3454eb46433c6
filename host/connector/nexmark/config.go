package nexmark

import (
	"github.com/floe-stream/floe/host/connector/ratelimit"

	"fmt"
	"math"

	"github.com/floe-stream/floe/host/connector"
)

// DefaultEventsPerSecond is the event-time rate of a stream whose Config
// leaves EventsPerSecond at 0: the default first event rate of the Beam and
// Flink Nexmark generators.
const DefaultEventsPerSecond = 10_000

// MaxEventsPerSecond is the largest event-time rate a Config accepts.
const MaxEventsPerSecond = 1_000_000_000

// BaseTime is the event time of event 0, in milliseconds since the epoch:
// 2024-01-01T00:00:00Z, a multiple of every window size of the queries.
const BaseTime int64 = 1_704_067_200_000

// Config configures a Nexmark source.
type Config struct {
	// Count is the total number of events across all subtasks; 0 means
	// unbounded.
	Count int64
	// Rate caps the events per second of wall-clock time of the whole
	// source; 0 means unlimited.
	Rate float64
	// Schedule, when set instead of Rate, changes the rate in steps; each
	// split follows it by the events it has emitted.
	Schedule ratelimit.Schedule
	// EventsPerSecond is the event-time rate: event n happens at BaseTime
	// plus n/EventsPerSecond seconds. 0 means DefaultEventsPerSecond.
	EventsPerSecond int64
	// Seed varies the random draws of every event; 0 draws as Beam's
	// generator does.
	Seed int64
	// Stream selects the kind of events emitted: 'P' (persons), 'A'
	// (auctions), 'B' (bids), or 0 for all of them. A selective source
	// walks the same event numbers as the mixed one and emits only those
	// of its kind, so the events keep their ids and timestamps.
	Stream byte
	// Clock paces the rate limit; nil means the system clock.
	Clock connector.Clock
}

// validate reports the first field of c that is out of range.
func (c Config) validate() error {
	switch {
	case c.Count < 0:
		return fmt.Errorf("nexmark: count %d is negative", c.Count)
	case c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return fmt.Errorf("nexmark: rate %v is not a non-negative number", c.Rate)
	case c.Rate > 0 && len(c.Schedule) > 0:
		return fmt.Errorf("nexmark: give a rate or a schedule, not both")
	case c.EventsPerSecond < 0 || c.EventsPerSecond > MaxEventsPerSecond:
		return fmt.Errorf("nexmark: eventsPerSecond %d is not from 1 to %d (or 0 for the default)", c.EventsPerSecond, MaxEventsPerSecond)
	case c.Stream != 0 && c.Stream != 'P' && c.Stream != 'A' && c.Stream != 'B':
		return fmt.Errorf("nexmark: stream %q is not 'P', 'A', 'B' or 0 (all)", c.Stream)
	}
	return nil
}

// generator returns the generator of the events c describes.
func (c Config) generator() Generator {
	return NewGenerator(c.EventsPerSecond, c.Seed)
}
