package jobspec

import (
	"maps"
	"slices"
)

// LocalPather is implemented by a SourceSpec or SinkSpec whose connector
// opens local files or directories, so that a cluster can keep jobs to the
// paths it allows (internal/confine) without knowing the connector.
type LocalPather interface {
	// LocalPaths returns the paths the connector opens, as the spec wrote
	// them, each with the field of the section that names it ("path").
	LocalPaths() []LocalPath
}

// LocalPath is one local path that a job's connector opens.
type LocalPath struct {
	// Field names the field that holds the path: relative to the section
	// in what a LocalPather returns, from the spec's root (sink.path) in
	// what Job.LocalPaths returns.
	Field string
	// Path is the path as the spec wrote it, parameters substituted; a
	// relative one is relative to the working directory of the process
	// that opens it.
	Path string
	// Write tells that the connector writes there, as a sink does into its
	// directory; otherwise it only reads.
	Write bool
}

// LocalPaths returns the local paths the connectors of j open: its
// sources', its sinks' and those of the sinks its side outputs end in, in
// that order (side outputs by operator, then by name).
func (j *Job) LocalPaths() []LocalPath {
	var out []LocalPath
	add := func(path string, spec any) {
		if lp, ok := spec.(LocalPather); ok {
			for _, p := range lp.LocalPaths() {
				p.Field = childPath(path, p.Field)
				out = append(out, p)
			}
		}
	}
	for i, src := range j.Sources {
		add(j.sourcePath(i), src.Spec)
	}
	for i, sink := range j.Sinks {
		add(j.sinkPath(i), sink.Spec)
	}
	for i, op := range j.Operators {
		for _, name := range slices.Sorted(maps.Keys(op.SideOutputs)) {
			so := op.SideOutputs[name]
			path := itemPath("operators", i) + ".sideOutputs." + name
			if so.Operators != nil {
				path += ".sink"
			}
			add(path, so.Sink.Spec)
		}
	}
	return out
}
