package jobspec

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// This file holds the registry of source and sink types. A connector
// package registers the type it implements from its init function, with the
// raw struct of its section's own fields and a function that builds its
// settings from them; host/connector/builtin imports the built-in ones.
// Parse then knows a type only once its connector is linked in.

// SourceSpec is the settings of a source of one registered type: what its
// connector's parse function returned. A SourceSpec is read-only once
// built, so Jobs that share it may be read concurrently.
type SourceSpec interface {
	// Bounded reports whether the source ends by itself.
	Bounded() bool
}

// RateLimited is implemented by a SourceSpec whose source reads at a
// configured rate (a rate-limited generator): the autoscaler takes it as
// the rate the source must sustain, rather than the rate it managed.
type RateLimited interface {
	// ConfiguredRate returns the records per second of the whole source,
	// 0 when it is not limited.
	ConfiguredRate() float64
}

// SinkSpec is the settings of a sink of one registered type. The job spec
// needs nothing from it; the host opens the sink through its methods.
type SinkSpec interface{}

// JobChecker is implemented by a SourceSpec or SinkSpec whose settings are
// valid only together with the rest of the job, such as a transaction
// timeout that must outlast a checkpoint. Parse calls CheckJob once the
// whole job is built, and so does every method that changes what it checks
// (WithCheckpointInterval).
type JobChecker interface {
	// CheckJob returns the field of the section at fault, relative to the
	// section ("transactionTimeout"), and what is wrong; or "" and nil.
	CheckJob(j *Job) (field string, err error)
}

// connectorType is one registered source or sink type.
type connectorType struct {
	name string
	// fields are the section fields of the type, by yaml tag, with their
	// raw types.
	fields map[string]reflect.Type
	// order lists fields in the order of the raw struct.
	order []string
	// sideOutput says whether a side output may end in the type.
	sideOutput bool
	// parse decodes the section node n and builds the type's settings.
	parse func(s *Section, n *yaml.Node) (any, error)
}

// registry holds the registered types of one kind, sorted by name.
type registry struct {
	kind  string // "source" or "sink"
	types []*connectorType
}

// NB: the registries are filled by init functions and only read after, so
// they need no lock; a package-level registry is what lets a connector
// package plug itself in without jobspec importing it (see doc.go).
var (
	sources = &registry{kind: "source"}
	sinks   = &registry{kind: "sink"}
)

// RegisterSource makes typ a source type. R is the raw struct of the
// section's own fields (those besides type, uid, parallelism, timestamps
// and watermarks): each field a Scalar, a pointer to such a struct, or a
// list or map of them, named by its yaml tag. parse builds the source's
// settings from the decoded section, reporting problems through s.
//
// RegisterSource is meant for init functions. It panics when typ is
// registered already, or when another source type has a field of the same
// name but a different raw type, because the shape phase checks a section's
// fields before it knows the section's type.
func RegisterSource[R any](typ string, parse func(s *Section, raw *R) SourceSpec) {
	sources.add(newType[R](typ, false, func(s *Section, raw *R) any { return parse(s, raw) }))
}

// RegisterSink makes typ a sink type, as RegisterSource does a source
// type. A sink section's common fields are type, uid and parallelism. With
// sideOutput set, an operator's side output may end in the type too; its
// section there has no field besides type and path.
func RegisterSink[R any](typ string, sideOutput bool, parse func(s *Section, raw *R) SinkSpec) {
	sinks.add(newType[R](typ, sideOutput, func(s *Section, raw *R) any { return parse(s, raw) }))
}

func newType[R any](typ string, sideOutput bool, parse func(*Section, *R) any) *connectorType {
	ft := structFields(reflect.TypeFor[R]())
	t := &connectorType{name: typ, fields: map[string]reflect.Type{}, order: ft.known, sideOutput: sideOutput}
	for _, name := range ft.known {
		t.fields[name], _ = ft.typeOf(name)
	}
	t.parse = func(s *Section, n *yaml.Node) (any, error) {
		var raw R
		if err := n.Decode(&raw); err != nil {
			return nil, err
		}
		return parse(s, &raw), nil
	}
	return t
}

func (r *registry) add(t *connectorType) {
	if r.lookup(t.name) != nil {
		panic(fmt.Sprintf("jobspec: %s type %q registered twice", r.kind, t.name))
	}
	for _, o := range r.types {
		for name, ft := range t.fields {
			if ot, ok := o.fields[name]; ok && ot != ft {
				panic(fmt.Sprintf("jobspec: %s types %q and %q both have a field %q, of different raw types", r.kind, o.name, t.name, name))
			}
		}
	}
	r.types = append(r.types, t)
	slices.SortFunc(r.types, func(a, b *connectorType) int { return strings.Compare(a.name, b.name) })
}

// lookup returns the type named name, or nil.
func (r *registry) lookup(name string) *connectorType {
	for _, t := range r.types {
		if t.name == name {
			return t
		}
	}
	return nil
}

// names returns the names of the registered types, sorted, keeping only
// those that may end a side output when sideOutputs is set.
func (r *registry) names(sideOutputs bool) []string {
	var out []string
	for _, t := range r.types {
		if t.sideOutput || !sideOutputs {
			out = append(out, t.name)
		}
	}
	return out
}

// sectionFields returns the fields a section of the registry's kind may
// hold: common's, then those of every registered type.
func (r *registry) sectionFields(common reflect.Type) fieldTypes {
	ft := structFields(common)
	types := map[string]reflect.Type{}
	for _, name := range ft.known {
		types[name], _ = ft.typeOf(name)
	}
	known := ft.known
	for _, t := range r.types {
		for _, name := range t.order {
			if _, ok := types[name]; !ok {
				types[name] = t.fields[name]
				known = append(known, name)
			}
		}
	}
	return fieldTypes{typeOf: func(name string) (reflect.Type, bool) { t, ok := types[name]; return t, ok }, known: known}
}

// owners describes the types that have field name, for a message: "a file
// or generator source".
func (r *registry) owners(name string) string {
	var names []string
	for _, t := range r.types {
		if _, ok := t.fields[name]; ok {
			names = append(names, t.name)
		}
	}
	return "a " + join(names, "or") + " " + r.kind
}

// buildSection rejects the fields of section n at path that belong to other
// types than t, leaving out those in common, and then has t build its
// settings. It returns nil when the section cannot be decoded.
func (b *builder) buildSection(r *registry, t *connectorType, path string, n *yaml.Node, common map[string]bool, uid string) any {
	n = deref(n)
	for i := 0; i+1 < len(n.Content); i += 2 {
		name := deref(n.Content[i]).Value
		if _, own := t.fields[name]; own || common[name] || isNull(deref(n.Content[i+1])) {
			continue
		}
		b.p.reject(childPath(path, name), "only applies to %s", r.owners(name))
	}
	spec, err := t.parse(&Section{p: b.p, path: path, uid: uid, job: b.jobName}, n)
	if err != nil {
		b.p.add(path, "%v", err)
	}
	return spec
}

// commonFields returns the yaml names of the fields of the raw struct t.
func commonFields(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for _, name := range structFields(t).known {
		out[name] = true
	}
	return out
}

// checkJob runs the JobCheckers of the source and the sink of j, adding a
// problem for each error, unless the checkpoints section they check against
// was rejected.
func (b *builder) checkJob(j *Job) {
	if b.p.rejected("checkpoints") {
		return
	}
	for _, s := range j.specs() {
		if c, ok := s.spec.(JobChecker); ok {
			if field, err := c.CheckJob(j); err != nil {
				b.p.add(childPath(s.path, field), "%v", err)
			}
		}
	}
}

// checkConnectors returns the first error of the JobCheckers of the source
// and the sink of j, prefixed by the field path.
func (j *Job) checkConnectors() error {
	for _, s := range j.specs() {
		if c, ok := s.spec.(JobChecker); ok {
			if field, err := c.CheckJob(j); err != nil {
				return fmt.Errorf("%s: %w", childPath(s.path, field), err)
			}
		}
	}
	return nil
}

// specs returns the settings of the job's sources and sinks with their
// paths.
func (j *Job) specs() []struct {
	path string
	spec any
} {
	var out []struct {
		path string
		spec any
	}
	for i, s := range j.Sources {
		out = append(out, struct {
			path string
			spec any
		}{j.sourcePath(i), s.Spec})
	}
	for i, s := range j.Sinks {
		out = append(out, struct {
			path string
			spec any
		}{j.sinkPath(i), s.Spec})
	}
	return out
}
