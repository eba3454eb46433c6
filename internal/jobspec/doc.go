// Package jobspec reads a Floe job spec: the YAML file that names a job's
// source, its chain of Wasm operators and its sink, and says how the job runs
// (parallelism, state backend, checkpoints, restarts). It turns the file into
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
//  4. Building (build.go, stages.go, sections.go, convert.go): each raw field is
//     converted into its typed form with a message naming the field path and
//     what is wrong, defaults are applied and cross-field rules are checked
//     (uids unique, modules declared, process after keyBy, parallelism within
//     maxParallelism).
//
// Problems from all phases are collected, sorted by line and returned
// together by errors.Join, one FieldError per line of the message. A problem
// inside a field that an earlier phase already rejected is dropped, so one
// mistake yields one message.
//
// Whether module files exist is deliberately not part of Parse: a scheduler
// validates specs whose modules arrive later by upload, and calls
// Job.CheckModules only when they should be on disk.
package jobspec
