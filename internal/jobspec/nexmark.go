package jobspec

import "math"

// This file builds a nexmark source: the Nexmark benchmark's event stream
// (internal/connector/nexmark).

// The event-time rates of a nexmark source: the default, and the largest
// accepted. They match nexmark.DefaultEventsPerSecond and
// nexmark.MaxEventsPerSecond.
const (
	DefaultNexmarkEventsPerSecond = 10_000
	maxNexmarkEventsPerSecond     = 1_000_000_000
)

// nexmarkSource returns the settings of a nexmark source.
func (b *builder) nexmarkSource(r *rawSource) *NexmarkSource {
	b.p.only("source.path", r.Path, "a file source")
	b.p.only("source.follow", r.Follow, "a file source")
	b.p.only("source.kind", r.Kind, "a generator source")
	b.p.only("source.keys", r.Keys, "a generator source")
	b.p.only("source.size", r.Size, "a generator source")
	return &NexmarkSource{
		Count:           b.p.integer("source.count", r.Count, 0, 0, math.MaxInt64),
		Rate:            b.p.rate("source.rate", r.Rate),
		EventsPerSecond: b.p.integer("source.eventsPerSecond", r.EventsPerSecond, DefaultNexmarkEventsPerSecond, 1, maxNexmarkEventsPerSecond),
		Seed:            b.p.integer("source.seed", r.Seed, 0, 0, math.MaxInt64),
	}
}

// notNexmarkSource rejects the fields that only a nexmark source has.
func (b *builder) notNexmarkSource(r *rawSource) {
	b.p.only("source.eventsPerSecond", r.EventsPerSecond, "a nexmark source")
	b.p.only("source.seed", r.Seed, "a nexmark source")
}
