package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/floe-stream/floe/host/task"
)

// Config configures an Exporter.
type Config struct {
	// Retain is how long a finished task's last values stay exported, so
	// that a scrape after the end still sees its final counts; 0 means
	// DefaultRetain.
	Retain time.Duration
	// Now is the clock for task times and retention; nil means time.Now.
	Now func() time.Time
	// NoRuntime leaves out the Go runtime and process collectors, for an
	// Exporter whose metrics are merged into a registry that has them.
	NoRuntime bool
}

// DefaultRetain is Config.Retain's default: a few of Prometheus's default
// 15 s scrape intervals.
const DefaultRetain = time.Minute

// TaskID names a task for its labels: the job's id, the stage's index in
// the job's plan and the subtask's index.
type TaskID struct {
	Job            string
	Stage, Subtask int
	// Attempt is the job's restart attempt; a newer attempt's task takes
	// the place of an older one's, as the labels do not tell them apart.
	Attempt int
}

type slot struct {
	job            string
	stage, subtask int
}

// entry is one exported task: running (t set) or finished (final set).
type entry struct {
	attempt int
	t       *task.Task
	labels  taskLabels
	final   *sample
	until   time.Time
	// busy is the last busy time exported, which keeps the counter
	// monotonic (see sample.busy).
	busy time.Duration
}

// Exporter collects the metrics of a task manager's tasks. It is safe for
// concurrent use.
type Exporter struct {
	cfg     Config
	reg     *prometheus.Registry
	lookups *lookups

	mu    sync.Mutex
	tasks map[slot]*entry
}

// New returns an Exporter with its own registry, holding the task
// collector, the state lookup histogram and, unless cfg.NoRuntime, the Go
// runtime and process collectors.
func New(cfg Config) *Exporter {
	if cfg.Retain == 0 {
		cfg.Retain = DefaultRetain
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	e := &Exporter{cfg: cfg, reg: prometheus.NewRegistry(), lookups: newLookups(), tasks: map[slot]*entry{}}
	e.reg.MustRegister(taskCollector{e}, e.lookups.hist)
	if !cfg.NoRuntime {
		e.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return e
}

// Registry returns the registry the Exporter's metrics are in, to add
// others to or to gather from.
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// Handler serves the metrics in the Prometheus exposition formats.
func (e *Exporter) Handler() http.Handler {
	return promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{Registry: e.reg})
}

// AddTask exports t's metrics until the returned function is called,
// which it must be once t.Run has returned; the task's last values then
// stay for Config.Retain. A newer attempt of the same subtask replaces an
// older one.
func (e *Exporter) AddTask(id TaskID, t *task.Task) (done func()) {
	jobName, vertex := t.Vertex()
	k := slot{id.Job, id.Stage, id.Subtask}
	en := &entry{attempt: id.Attempt, t: t, labels: taskLabels{
		job: id.Job, jobName: jobName, vertex: vertex, subtask: strconv.Itoa(id.Subtask)}}
	e.mu.Lock()
	if old, ok := e.tasks[k]; !ok || old.attempt <= id.Attempt {
		e.tasks[k] = en
	}
	e.mu.Unlock()
	return func() {
		now := e.cfg.Now()
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.tasks[k] != en {
			return
		}
		s := en.sample(now)
		en.final, en.t, en.until = &s, nil, now.Add(e.cfg.Retain)
	}
}

// samples returns the current sample of every exported task and drops the
// finished tasks past their retention.
func (e *Exporter) samples() []sample {
	now := e.cfg.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]sample, 0, len(e.tasks))
	for k, en := range e.tasks {
		switch {
		case en.t != nil:
			out = append(out, en.sample(now))
		case now.After(en.until):
			delete(e.tasks, k)
		default:
			out = append(out, *en.final)
		}
	}
	return out
}
