// Package jobspec reads a Floe job spec: the YAML file that names a job's
// sources, its Wasm operators and its sinks, connected into a dataflow graph
// (graph.go; a linear spec is the graph of one source, a chain and one
// sink), and says how the job runs (parallelism, state backend,
// checkpoints, restarts). It turns the file into
// a typed, validated Job, or into a list of problems that each name the field
// at fault. docs/jobs.md is the user-facing reference of the format.
//
// Parse runs the spec through four phases, each working on the YAML node tree
// that the one before left behind:
//
//  1. Shape (shape.go): every mapping holds only known fields, each field
//     holds the kind of node its raw struct expects (a single value, a
//     mapping, a list), and no field appears twice. Offending nodes are
//     reported by field path and removed, so the later phases see a tree of
//     the right shape and can still report everything else.
//  2. Substitution (params.go): ${name} in every scalar value outside the
//     params section is replaced by the --set value or the params default.
//     This happens on nodes, before any typed decoding, so a parameter can
//     stand for a number, a bool or a path alike.
//  3. Decoding (raw.go): the tree is decoded into raw structs whose leaves are
//     uninterpreted scalars, so no value is converted by YAML's own rules.
//  4. Building (build.go, stages.go, sections.go, convert.go, and each
//     connector's parse function for its section): each raw field is
//     converted into its typed form with a message naming the field path and
//     what is wrong, defaults are applied and cross-field rules are checked
//     (uids unique, modules declared, parallelism within maxParallelism),
//     and the graph is connected and checked (graph.go: inputs defined, no
//     cycle, a keyBy on every path to a keyed operator).
//
// Problems from all phases are collected, sorted by line and returned
// together by errors.Join, one FieldError per line of the message. A problem
// inside a field that an earlier phase already rejected is dropped, so one
// mistake yields one message.
//
// The fields of each source and sink type are not jobspec's. A connector
// package registers its type from its init function (RegisterSource,
// RegisterSink, connectors.go): a raw struct of Scalars naming the section's
// own fields, and a function that builds the type's settings through a
// Section, which converts fields and reports problems exactly as the rest of
// the spec's are. The shape phase knows the fields of every registered type;
// building refuses a field of another type than the section's ("only
// applies to a generator or nexmark source"), then hands the section to its
// type. The result, Source.Spec or Sink.Spec, is the connector's own type,
// which the host opens without knowing it (host/connector.SourceOpener).
// host/connector/builtin links in the built-in connectors; a program that
// parses specs imports it, and jobspec itself imports no connector.
//
// NB: a package-level registry filled by init functions goes against the
// rule of passing registries in, on purpose. Parse is called from the
// command, the scheduler, its client and the task manager, none of which
// chooses connectors; a registry passed in would be the same list threaded
// through all of them. The set of connectors is fixed when the program is
// linked, which is what init registration expresses.
//
// Whether module files exist is deliberately not part of Parse: a scheduler
// validates specs whose modules arrive later by upload, and calls
// Job.CheckModules only when they should be on disk.
package jobspec
