package sqlc

import (
	"fmt"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/floe-stream/floe/internal/sqlprog"
)

// The spec's sections, in the order docs/jobs.md lists their fields.
type specDoc struct {
	Name           string            `yaml:"name"`
	Parallelism    int               `yaml:"parallelism,omitempty"`
	MaxParallelism int               `yaml:"maxParallelism,omitempty"`
	Modules        map[string]string `yaml:"modules,omitempty"`
	Sources        []yaml.Node       `yaml:"sources"`
	Operators      []specOperator    `yaml:"operators"`
	Sinks          []yaml.Node       `yaml:"sinks"`
	State          map[string]any    `yaml:"state,omitempty"`
	Checkpoints    map[string]any    `yaml:"checkpoints,omitempty"`
}

type specOperator struct {
	Type     string            `yaml:"type"`
	UID      string            `yaml:"uid"`
	Input    string            `yaml:"input,omitempty"`
	Module   string            `yaml:"module,omitempty"`
	Function string            `yaml:"function,omitempty"`
	Key      string            `yaml:"key,omitempty"`
	Window   map[string]string `yaml:"window,omitempty"`
	Time     string            `yaml:"time,omitempty"`
	SQL      string            `yaml:"sql,omitempty"`

	// A join's (join.go): its two inputs, in Input's place, and its
	// bounds or kind.
	Inputs  []string `yaml:"inputs,omitempty,flow"`
	Between []string `yaml:"between,omitempty,flow"`
	Join    string   `yaml:"join,omitempty"`
}

// spec writes the job spec: a source per table a query reads, the
// operators of every query, a sink per table a query writes.
func (c *compiler) spec() (spec []byte, sources, sinks []*Table, err error) {
	if err := c.checkViews(); err != nil {
		return nil, nil, nil, err
	}
	doc := specDoc{Name: c.props.name, Parallelism: c.props.parallelism, MaxParallelism: c.props.maxParallelism}
	if c.props.checkpointInterval > 0 {
		doc.Checkpoints = map[string]any{"interval": c.props.checkpointInterval.String()}
	}
	if doc.Modules, err = c.modules(); err != nil {
		return nil, nil, nil, err
	}
	if c.props.stateBackend != "" {
		doc.State = map[string]any{"backend": c.props.stateBackend}
	}
	sinkInputs := map[*Table][]string{}
	var sinkOrder []*Table
	added := map[*Table]bool{}
	inserts := map[*Table]int{}
	changelog := map[*Table]bool{}
	for _, q := range c.queries {
		read := []*Table{q.source}
		if q.join != nil {
			read = append(append(read, q.join.right), q.join.more...)
		}
		for _, t := range read {
			if t.Connector == upsertKafka {
				return nil, nil, nil, c.errAt(t.at, "table %s is an upsert-kafka table: a sink only; reading one is not supported", t.Name)
			}
			if !added[t] {
				added[t] = true
				doc.Sources = append(doc.Sources, sourceNode(t))
				sources = append(sources, t)
			}
		}
		inserts[q.sink]++
		prefix := uidPart(q.sink.Name) + "-" + strconv.Itoa(inserts[q.sink])
		input := uidPart(q.source.Name)
		var joinInputs []string
		if q.join != nil {
			joinInputs = q.join.branches(&doc.Operators, q, prefix)
		}
		for _, op := range q.ops {
			so := specOperator{Type: op.kind, UID: prefix + "-" + op.suffix, Input: input}
			switch op.kind {
			case "sql":
				so.SQL = op.prog.String()
				if op.fn != nil {
					so.Module, so.Function = op.fn.Module, op.fn.Export
				}
			case "keyBy":
				so.Key = "row:" + strconv.Itoa(op.keys)
				if op.textKey {
					so.Key = "text:" + strconv.Itoa(op.keys)
				}
			case "window":
				if op.topN != nil {
					so.SQL = op.topN.String() // NB: a window Top-N
				} else {
					so.SQL = op.agg.String()
				}
				so.Window = op.window.spec()
				if op.window.proc {
					so.Time = "processing"
				}
			case "sqlGroup":
				so.SQL = op.agg.String()
			case "sqlTopN":
				so.SQL = op.topN.String()
			case "sqlOver":
				so.SQL = op.over.String()
			case "intervalJoin", "windowJoin":
				op.join.fill(&so, op.join.inputs(joinInputs, input))
			}
			doc.Operators = append(doc.Operators, so)
			input = so.UID
		}
		if q.sink.view {
			continue // NB: a view's last operator keeps its rows.
		}
		if sinkInputs[q.sink] == nil {
			sinkOrder = append(sinkOrder, q.sink)
			changelog[q.sink] = q.writesChangelog()
		} else if q.sink.Connector == upsertKafka && changelog[q.sink] != q.writesChangelog() {
			return nil, nil, nil, c.errAt(q.sink.at, "table %s: its queries must all write updating results or all append, for its upsert sink", q.sink.Name)
		}
		sinkInputs[q.sink] = append(sinkInputs[q.sink], input)
	}
	for _, t := range sinkOrder {
		n := sinkNode(t, sinkInputs[t])
		if t.Connector == upsertKafka {
			upsertSink(&n, t, changelog[t])
		}
		doc.Sinks = append(doc.Sinks, n)
	}
	sinks = sinkOrder
	for _, t := range c.order {
		if added[t] && sinkInputs[t] != nil {
			return nil, nil, nil, c.errAt(t.at, "table %s is both read and written; a table is a source or a sink", t.Name)
		}
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("writing the job spec: %w", err)
	}
	return append([]byte("# compiled from SQL by floe sql; docs/sql.md\n"), out...), sources, sinks, nil
}

func (w windowSpec) spec() map[string]string {
	m := map[string]string{"type": w.kind}
	switch w.kind {
	case "tumbling":
		m["size"] = durationText(w.size)
	case "sliding":
		m["size"], m["slide"] = durationText(w.size), durationText(w.slide)
	case "session":
		m["gap"] = durationText(w.gap)
	}
	return m
}

func durationText(d time.Duration) string { return d.String() }

// sourceNode is a table's source section: its connector's options as
// written, and its event time.
func sourceNode(t *Table) yaml.Node {
	n := mapping("type", t.Connector, "uid", uidPart(t.Name))
	for _, o := range t.Options {
		add(&n, o.Key, o.Value)
	}
	if t.EventTime >= 0 {
		wm := mapping("maxOutOfOrderness", t.Delay.String())
		if t.Prefix == "" {
			field := "csv:" + strconv.Itoa(t.EventTime)
			if t.Format == sqlprog.FormatJSON {
				field = "json:" + t.Columns[t.EventTime].Name
			}
			ts := mapping("field", field, "format", timestampFormat(t.Columns[t.EventTime].Type))
			n.Content = append(n.Content, scalar("timestamps"), &ts)
		} // NB: else a nexmark record carries its date_time as its timestamp.
		n.Content = append(n.Content, scalar("watermarks"), &wm)
	}
	return n
}

func sinkNode(t *Table, inputs []string) yaml.Node {
	n := mapping("type", t.Connector, "uid", uidPart(t.Name))
	for _, o := range t.Options {
		add(&n, o.Key, o.Value)
	}
	in := yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range inputs {
		in.Content = append(in.Content, scalar(s))
	}
	n.Content = append(n.Content, scalar("inputs"), &in)
	return n
}

func mapping(kv ...string) yaml.Node {
	n := yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		add(&n, kv[i], kv[i+1])
	}
	return n
}

func add(n *yaml.Node, k, v string) { n.Content = append(n.Content, scalar(k), scalar(v)) }

// scalar is a string node: the encoder quotes it when plain text would
// read as something else.
func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
