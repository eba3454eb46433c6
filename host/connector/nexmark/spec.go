package nexmark

import (
	"math"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/ratelimit"
	"github.com/floe-stream/floe/internal/jobspec"
)

// This file is the Nexmark generator's part of a job spec: source sections
// of type nexmark (docs/jobs.md), and how they open.

func init() { jobspec.RegisterSource("nexmark", parse) }

// Spec is a job spec's nexmark source: the Nexmark benchmark's stream of
// persons, auctions and bids, one CSV line per event stamped with its event
// time.
type Spec struct {
	// Count is the number of events of the whole source; 0 means no end.
	Count int64
	// Rate caps the events per second of wall-clock time of the whole
	// source; 0 means no cap.
	Rate float64
	// Schedule, when the spec's rate is a list of steps, changes the rate
	// in steps (ratelimit.Schedule); Rate is then 0.
	Schedule ratelimit.Schedule
	// EventsPerSecond is the event-time rate: event n happens n /
	// EventsPerSecond seconds after the stream's fixed start
	// (DefaultEventsPerSecond unless the spec says otherwise).
	EventsPerSecond int64
	// Seed varies the events' random contents; 0 gives the draws of the
	// Beam Nexmark generator.
	Seed int64
	// Stream is which events the source emits: StreamAll, or only those of
	// StreamPersons, StreamAuctions or StreamBids, with the ids and
	// timestamps they have in the mixed stream.
	Stream string
}

// The values of a nexmark source's stream field.
const (
	StreamAll      = "all"
	StreamPersons  = "persons"
	StreamAuctions = "auctions"
	StreamBids     = "bids"
)

// streamKinds maps a stream field to Config.Stream.
var streamKinds = map[string]byte{StreamAll: 0, StreamPersons: 'P', StreamAuctions: 'A', StreamBids: 'B'}

type raw struct {
	Rate            jobspec.RateField `yaml:"rate"`
	Count           jobspec.Scalar    `yaml:"count"`
	EventsPerSecond jobspec.Scalar    `yaml:"eventsPerSecond"`
	Seed            jobspec.Scalar    `yaml:"seed"`
	Stream          jobspec.Scalar    `yaml:"stream"`
}

func parse(s *jobspec.Section, r *raw) jobspec.SourceSpec {
	n := &Spec{
		Count:           s.Integer("count", r.Count, 0, 0, math.MaxInt64),
		EventsPerSecond: s.Integer("eventsPerSecond", r.EventsPerSecond, DefaultEventsPerSecond, 1, MaxEventsPerSecond),
		Seed:            s.Integer("seed", r.Seed, 0, 0, math.MaxInt64),
		Stream:          s.Choice("stream", r.Stream, "nexmark stream", StreamAll, StreamAll, StreamPersons, StreamAuctions, StreamBids),
	}
	var steps []jobspec.RateStep
	n.Rate, steps = s.RateSchedule("rate", r.Rate)
	for _, st := range steps {
		n.Schedule = append(n.Schedule, ratelimit.Step{For: st.For, Rate: st.Rate})
	}
	return n
}

// Bounded implements jobspec.SourceSpec: a nexmark source with a count
// ends.
func (n *Spec) Bounded() bool { return n.Count > 0 }

// ConfiguredRate implements jobspec.RateLimited: the autoscaler's input
// rate of the source.
func (n *Spec) ConfiguredRate() float64 { return n.Rate }

// OpenSource implements connector.SourceOpener.
func (n *Spec) OpenSource(split connector.SplitInfo, _ connector.Env) (connector.Source, error) {
	return NewSource(Config{Count: n.Count, Rate: n.Rate, Schedule: n.Schedule, EventsPerSecond: n.EventsPerSecond, Seed: n.Seed, Stream: streamKinds[n.Stream]}, split)
}
