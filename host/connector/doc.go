// Package connector defines how Floe reads streams from and writes streams to
// the outside world.
//
// A Source produces one subtask's share of a stream in record batches; a Sink
// consumes one subtask's share. Each parallel instance of a connector is told
// which share it owns through a SplitInfo. Sources and sinks are driven by the
// task's loop from a single goroutine, so they hold no locks of their own.
//
// A source's read position is operator list state: a list of self-describing
// split states, which EvenSplit redistributes over the new subtasks when a
// job is rescaled. Union, which gives every new subtask all the elements, is
// there for state that each instance filters for itself.
//
// The connectors themselves live in subpackages:
//
//   - file: a source that reads lines of a file, bounded and split by byte
//     range across subtasks, or unbounded in follow mode; and a sink that
//     writes one part file per subtask into a directory.
//   - generator: a source of synthetic records, a sequence or random keyed
//     values, for tests and benchmarks.
//   - stdout: a sink that writes lines to a shared writer, os.Stdout by
//     default, without interleaving lines of different subtasks.
//   - nexmark: the Nexmark benchmark's event generator (persons, auctions,
//     bids), deterministic by event number, for the udfs/nexmark queries.
//   - kafka: a Kafka source whose partition offsets are split state, and
//     at-least-once and exactly-once (transactional) sinks, on franz-go.
//   - ratelimit: the token bucket that paces rate-limited sources.
//   - connectortest: a fake Clock and helpers for connector tests.
//
// Time reaches connectors only through an injected Clock, so rate limits and
// polling can be tested without sleeping. The reasons behind the main design
// choices are in RATIONALE.md.
package connector
