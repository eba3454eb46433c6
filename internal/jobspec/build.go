package jobspec

import (
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
)

// The limits of the job-wide settings.
const (
	defaultParallelism    = 1
	defaultMaxParallelism = 128
	maxMaxParallelism     = 32768
	unbounded             = math.MaxInt32
	// maxOperators bounds a job's operators: each is a chained call per
	// record and a module instance per subtask, so a spec of thousands is a
	// mistake or an attack on the task managers, not a job.
	maxOperators = 1000
)

// builder turns a raw job into a Job, reporting every problem on the way.
type builder struct {
	p       *problems
	baseDir string
	// modules maps each declared module name to its absolute path.
	modules map[string]string
	// refs holds the modules named by digest, by name; nil for none.
	refs map[string]ModuleRef
	// owners maps each uid to the path of the stage that uses it.
	owners map[string]string
	// jobName is the job's name, for the connectors' defaults.
	jobName string
	// calls are the Wasm functions the spec names.
	calls []Call
	// views is true when a sql operator keeps a materialized view, which
	// ends the graph as a sink does: the job needs no sink then.
	views bool
	// dupUIDs tells that some uid is used twice, so inputs are ambiguous.
	dupUIDs bool
}

// build returns the Job that raw describes, with module paths resolved
// against baseDir and params as its parameter values. Its result is only
// meaningful when p holds no problems afterwards.
func build(raw *rawJob, baseDir string, params map[string]string, p *problems) *Job {
	b := &builder{p: p, baseDir: baseDir, owners: map[string]string{}}
	b.modules = b.resolveModules(raw.Modules)
	b.jobName = p.name("name", raw.Name)
	j := &Job{}
	// NB: steps are built in spec order, so that a repeated uid is
	// reported where it is repeated.
	j.Sources, j.sourcesListed = b.sources(raw.Source, raw.Sources)
	ops := b.operators(raw.Operators)
	j.Sinks, j.sinksListed = b.sinks(raw.Sink, raw.Sinks)
	*j = Job{
		Name:            b.jobName,
		Parallelism:     int(p.integer("parallelism", raw.Parallelism, defaultParallelism, 1, unbounded)),
		MaxParallelism:  int(p.integer("maxParallelism", raw.MaxParallelism, defaultMaxParallelism, 1, maxMaxParallelism)),
		Params:          params,
		Modules:         b.modules,
		ModuleRefs:      b.refs,
		Sources:         j.Sources,
		Operators:       ops,
		Sinks:           j.Sinks,
		sourcesListed:   j.sourcesListed,
		sinksListed:     j.sinksListed,
		RestartStrategy: b.restart(raw.RestartStrategy),
		State:           b.state(raw.State),
		Checkpoints:     b.checkpoints(raw.Checkpoints),
	}
	j.Autoscaler = p.autoscaler(raw.Autoscaler, "autoscaler", j.MaxParallelism)
	b.graph(j, raw)
	if raw.RestartStrategy == nil {
		j.RestartStrategy = defaultRestart(j.Checkpoints != nil)
	}
	j.calls = b.calls
	b.checkMaxParallelism(j)
	b.checkJob(j)
	return j
}

// resolveModules returns the absolute path of every declared module.
func (b *builder) resolveModules(raw map[string]Scalar) map[string]string {
	modules := make(map[string]string, len(raw))
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		path := childPath("modules", name)
		file, ok := b.p.text(path, raw[name])
		if !ok {
			continue
		}
		if ref, isRef, err := ParseModuleRef(file); isRef {
			modules[name] = "" // declared even when malformed: no errors about its users
			if err != nil {
				b.p.reject(path, "%v", err)
				continue
			}
			if b.refs == nil {
				b.refs = map[string]ModuleRef{}
			}
			b.refs[name] = ref
			continue
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(b.baseDir, file)
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			b.p.reject(path, "cannot make %q absolute: %v", file, err)
			continue
		}
		modules[name] = abs
	}
	return modules
}

// uid returns the uid at path, which must be a name no other stage uses.
func (b *builder) uid(path string, s Scalar) string {
	uid := b.p.name(path, s)
	if uid == "" {
		return ""
	}
	if owner, dup := b.owners[uid]; dup {
		b.dupUIDs = true
		b.p.reject(path, "%q is already used by %s", uid, owner)
		return uid
	}
	b.owners[uid] = parent(path)
	return uid
}

// parallelism returns the explicit parallelism of a stage, or 0.
func (b *builder) parallelism(path string, s Scalar) int {
	return int(b.p.integer(path, s, 0, 1, unbounded))
}

// module returns the module name at path, which must be declared.
func (b *builder) module(path string, s Scalar) string {
	name, ok := b.p.text(path, s)
	if !ok || b.p.rejected("modules") {
		return name
	}
	if _, ok := b.modules[name]; !ok {
		b.p.reject(path, "%q is not declared in modules (%s)", name, b.declared())
	}
	return name
}

// declared describes the declared modules for a message.
func (b *builder) declared() string {
	if len(b.modules) == 0 {
		return "no modules are declared"
	}
	return "declared: " + strings.Join(slices.Sorted(maps.Keys(b.modules)), ", ")
}

// checkMaxParallelism reports every parallelism above maxParallelism.
func (b *builder) checkMaxParallelism(j *Job) {
	if b.p.rejected("maxParallelism") {
		return
	}
	check := func(path string, n int) {
		if n > j.MaxParallelism {
			b.p.add(path, "%d exceeds maxParallelism %d", n, j.MaxParallelism)
		}
	}
	check("parallelism", j.Parallelism)
	for i, s := range j.Sources {
		check(j.sourcePath(i)+".parallelism", s.Parallelism)
	}
	for i, op := range j.Operators {
		check(itemPath("operators", i)+".parallelism", op.Parallelism)
	}
	for i, s := range j.Sinks {
		check(j.sinkPath(i)+".parallelism", s.Parallelism)
	}
}
