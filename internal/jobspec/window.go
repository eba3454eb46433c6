package jobspec

import (
	"time"

	"gopkg.in/yaml.v3"
)

// Window configures a window operator (docs/event-time.md).
type Window struct {
	// Kind is tumbling, sliding or session.
	Kind  string
	Size  time.Duration // tumbling, sliding
	Slide time.Duration // sliding
	Gap   time.Duration // session
	// ProcessingTime measures windows in processing time instead of event
	// time.
	ProcessingTime bool
	// AllowedLateness keeps fired event-time windows that long for late
	// records, which fire them again.
	AllowedLateness time.Duration
	// LateOutput names the side output that gets records later than that;
	// "" drops them.
	LateOutput string
	// Aggregate tells that Function is an aggregate function; otherwise it
	// is a window process function.
	Aggregate bool
}

type rawWindow struct {
	Type  Scalar `yaml:"type"`
	Size  Scalar `yaml:"size"`
	Slide Scalar `yaml:"slide"`
	Gap   Scalar `yaml:"gap"`
}

// rawSideOutput is a side output's route: a sink ({type, path}), or
// {operators: [...], sink: {type, path}}.
type rawSideOutput struct {
	Type      Scalar         `yaml:"type"`
	Path      Scalar         `yaml:"path"`
	Operators []rawOperator  `yaml:"operators"`
	Sink      *rawSideOutput `yaml:"sink"`
	node      *yaml.Node
}

// UnmarshalYAML decodes the route and keeps its node, which a sink's
// connector decodes its fields from.
func (r *rawSideOutput) UnmarshalYAML(n *yaml.Node) error {
	type plain rawSideOutput
	r.node = n
	return n.Decode((*plain)(r))
}

// sideOutputCommon holds the fields of a side output's route that are not
// its sink's.
var sideOutputCommon = map[string]bool{"type": true, "operators": true, "sink": true}

// SideOutput is where an operator's named side output goes: through
// stateless operators (map, filter, flatMap), chained in the same task,
// into a sink.
type SideOutput struct {
	Operators []Operator
	Sink      Sink
}

// windowShape returns the window: of a window or a windowJoin: its kind
// and durations.
func (b *builder) windowShape(path string, r *rawOperator) *Window {
	w := &Window{}
	if r.Window == nil {
		b.p.add(path+".window", "required (for example {type: tumbling, size: 10s})")
	} else {
		rw := r.Window
		wp := path + ".window"
		w.Kind = b.p.choice(wp+".type", rw.Type, "window type", "", "tumbling", "sliding", "session")
		switch w.Kind {
		case "tumbling":
			w.Size = b.windowDuration(wp+".size", rw.Size)
			b.p.only(wp+".slide", rw.Slide, "a sliding window")
			b.p.only(wp+".gap", rw.Gap, "a session window")
		case "sliding":
			w.Size = b.windowDuration(wp+".size", rw.Size)
			w.Slide = b.windowDuration(wp+".slide", rw.Slide)
			if w.Slide > 0 && w.Size%w.Slide != 0 {
				b.p.reject(wp+".size", "must be a multiple of the slide (%v), got %v", w.Slide, w.Size)
			}
			b.p.only(wp+".gap", rw.Gap, "a session window")
		case "session":
			w.Gap = b.windowDuration(wp+".gap", rw.Gap)
			b.p.only(wp+".size", rw.Size, "a tumbling or sliding window")
			b.p.only(wp+".slide", rw.Slide, "a sliding window")
		}
	}
	return w
}

// window fills in a window operator.
func (b *builder) window(path string, r *rawOperator, op *Operator) {
	w := b.windowShape(path, r)
	op.Window = w
	w.ProcessingTime = b.p.choice(path+".time", r.Time, "time", "event", "event", "processing") == "processing"
	w.AllowedLateness = b.p.duration(path+".allowedLateness", r.AllowedLateness, 0, 0)
	if w.ProcessingTime && w.AllowedLateness > 0 {
		b.p.reject(path+".allowedLateness", "applies only to event-time windows")
	}
	if r.LateOutput.set {
		w.LateOutput = r.LateOutput.value
	}
	if r.SQL.set {
		b.sqlWindow(path, r, op)
		return
	}
	switch {
	case r.Aggregate.set && r.Process.set:
		b.p.reject(path+".process", "a window has either an aggregate or a process function, not both")
	case r.Aggregate.set:
		w.Aggregate = true
		op.Function, _ = b.p.text(path+".aggregate", r.Aggregate)
	case r.Process.set:
		op.Function, _ = b.p.text(path+".process", r.Process)
	default:
		b.p.add(path+".aggregate", "a window needs an aggregate or a process function")
	}
	b.p.only(path+".function", r.Function, "map, filter, flatMap and process operators (a window names aggregate or process)")
	op.Module = b.module(path+".module", r.Module)
	if w.Aggregate {
		b.called(path+".aggregate", op.Module, op.Function, FunctionAggregate)
	} else {
		b.called(path+".process", op.Module, op.Function, FunctionProcessWindow)
	}
}

// notWindow rejects window fields on other operators.
func (b *builder) notWindow(path string, r *rawOperator) {
	if r.Window != nil {
		b.p.add(path+".window", "only for type window")
	}
	for name, s := range map[string]Scalar{"time": r.Time, "allowedLateness": r.AllowedLateness,
		"lateOutput": r.LateOutput, "aggregate": r.Aggregate, "process": r.Process} {
		b.p.only(path+"."+name, s, "a window operator")
	}
}

func (b *builder) windowDuration(path string, s Scalar) time.Duration {
	if !s.set {
		b.p.reject(path, "required (a duration such as 10s)")
		return 0
	}
	return b.p.duration(path, s, 0, time.Millisecond)
}

// sideOutputs returns the routes of an operator's side outputs.
func (b *builder) sideOutputs(path string, raw map[string]*rawSideOutput) map[string]SideOutput {
	if len(raw) == 0 {
		return nil
	}
	out := make(map[string]SideOutput, len(raw))
	for name, r := range raw {
		p := path + ".sideOutputs." + name
		if r == nil {
			b.p.add(p, "needs a route: {type: file, path: DIR}, {type: stdout}, or {operators: [...], sink: {...}}")
			continue
		}
		var so SideOutput
		sink := r
		if r.Sink != nil || r.Operators != nil {
			b.p.only(p+".type", r.Type, "a sink (put it under sink:)")
			b.p.only(p+".path", r.Path, "a sink (put it under sink:)")
			for i := range r.Operators {
				op := b.operator(itemPath(p+".operators", i), &r.Operators[i], false)
				b.p.only(itemPath(p+".operators", i)+".input", r.Operators[i].Input, "the job's operators: a side output's operators read the one before")
				if r.Operators[i].Inputs != nil {
					b.p.reject(itemPath(p+".operators", i)+".inputs", "only applies to the job's operators: a side output's operators read the one before")
				}
				switch op.Type {
				case OperatorMap, OperatorFilter, OperatorFlatMap, "":
				default:
					b.p.add(itemPath(p+".operators", i)+".type", "a side output's operators are map, filter or flatMap, not %s", op.Type)
				}
				if op.SideOutputs != nil {
					b.p.add(itemPath(p+".operators", i)+".sideOutputs", "a side output's operators cannot route side outputs of their own")
				}
				so.Operators = append(so.Operators, op)
			}
			if sink = r.Sink; sink == nil {
				b.p.add(p+".sink", "required after operators")
				continue
			}
			p += ".sink"
			if sink.Operators != nil || sink.Sink != nil {
				b.p.add(p, "a sink has type and path only")
			}
		}
		so.Sink = Sink{UID: name, Type: SinkType(b.p.choice(p+".type", sink.Type, "sink type", "", sinks.names(true)...))}
		if t := sinks.lookup(string(so.Sink.Type)); t != nil && t.sideOutput {
			so.Sink.Spec = b.buildSection(sinks, t, p, sink.node, sideOutputCommon, name)
		}
		out[name] = so
	}
	return out
}
