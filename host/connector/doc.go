// Package connector defines how Floe reads streams from and writes streams to
// the outside world.
//
// A Source produces one subtask's share of a stream in record batches; a Sink
// consumes one subtask's share. Each parallel instance of a connector is told
// which share it owns through a SplitInfo. Sources and sinks are driven by the
// task's loop from a single goroutine, so most hold no locks of their own;
// the file and stdout sinks also flush from a goroutine each owns, which
// shares a lock with their Write.
//
// A source's read position is operator list state: a list of self-describing
// split states, which EvenSplit redistributes over the new subtasks when a
// job is rescaled. Union, which gives every new subtask all the elements, is
// there for state that each instance filters for itself.
//
// Each connector lives in a subpackage that owns all of it: its section of a
// job spec (the fields, their parsing and their messages, registered with
// internal/jobspec by type from an init function), the spec type that
// parsing yields, and the source or sink that spec opens. A spec type
// implements SourceOpener or SinkOpener, so the task runtime opens any
// source with OpenSource(spec, split, env) and imports no connector. Package
// builtin links the built-in connectors into a program; adding a connector
// is a new subpackage and a line in builtin.
//
// NB: a second registry, of openers by type name, would let a spec parsed
// without the connector's code still be opened; no program does that, so
// the spec opens itself and jobspec's registry is the only one.
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
//   - builtin: imports the connectors above for their registration.
//
// Time reaches connectors only through an injected Clock, so rate limits and
// polling can be tested without sleeping. The reasons behind the main design
// choices are in RATIONALE.md.
package connector
