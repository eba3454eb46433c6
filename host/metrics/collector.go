package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floe-stream/floe/host/eventtime"
	"github.com/floe-stream/floe/host/record"
)

var (
	taskLabelNames = []string{"job", "job_name", "vertex", "subtask"}
	opLabelNames   = []string{"job", "job_name", "vertex", "subtask", "operator"}
)

func taskDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, taskLabelNames, nil)
}

func opDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, opLabelNames, nil)
}

// The descriptions of the task and operator metrics; docs/metrics.md says
// the same at more length.
var (
	descRecordsIn    = taskDesc("floe_task_records_in_total", "Records the task read from its source or its inbox.")
	descRecordsOut   = taskDesc("floe_task_records_out_total", "Records the task wrote to its sink or sent downstream.")
	descBusy         = taskDesc("floe_task_busy_seconds_total", "Time the task was neither idle nor back-pressured; rate()*1000 is Flink's busyTimeMsPerSecond.")
	descIdle         = taskDesc("floe_task_idle_seconds_total", "Time the task waited for input.")
	descBackPressure = taskDesc("floe_task_backpressured_seconds_total", "Time the task waited for room downstream.")
	descSideDropped  = taskDesc("floe_task_side_output_dropped_records_total", "Records emitted to side outputs that the job routes nowhere.")
	descInWM         = taskDesc("floe_task_input_watermark_seconds", "The task's event time: the least watermark of its inputs (Unix seconds).")
	descOutWM        = taskDesc("floe_task_output_watermark_seconds", "The last watermark the task sent downstream (Unix seconds).")
	descLag          = taskDesc("floe_task_event_time_lag_seconds", "Wall-clock time minus the task's input watermark.")
	descQueued       = taskDesc("floe_task_input_queue_length", "Messages (batches, watermarks, barriers) waiting in the task's inbox.")
	descCheckpoints  = taskDesc("floe_task_checkpoints_total", "Checkpoint snapshots the task took.")
	descAlign        = taskDesc("floe_task_checkpoint_alignment_seconds_total", "Time between the first and the last barrier of each checkpoint, summed.")
	descLastAlign    = taskDesc("floe_task_checkpoint_alignment_seconds", "Barrier alignment time of the task's last checkpoint.")

	descOpIn       = opDesc("floe_operator_records_in_total", "Records the operator was given.")
	descOpOut      = opDesc("floe_operator_records_out_total", "Records of the operator's main output, timers' output included.")
	descOpLate     = opDesc("floe_operator_late_records_total", "Records too late for every window of a window operator.")
	descCalls      = opDesc("floe_operator_guest_calls_total", "Calls into the operator's Wasm instance (one per batch, timer or window operation).")
	descCallTime   = opDesc("floe_operator_guest_call_seconds_total", "Wall time spent in calls into the operator's Wasm instance.")
	descYields     = opDesc("floe_operator_fuel_yields_total", "Times the guest ran out of fuel and yielded to the host.")
	descMemory     = opDesc("floe_operator_guest_memory_bytes", "Size of the guest's linear memory (64 KiB pages).")
	descStateKeys  = opDesc("floe_operator_state_keys", "Entries of the operator's keyed state on this subtask: one per key of a value or list state, one per map entry of a map state.")
	descStateBytes = opDesc("floe_operator_state_bytes", "Bytes of the operator's keyed state on this subtask: its store keys and values as stored, without the store's own overhead.")
	descInBytes    = opDesc("floe_operator_input_bytes_total", "Bytes of the batches handed to the operator's Wasm instance, as the ABI lays them out (16 bytes a record, its key and value).")

	descBytesRead  = taskDesc("floe_source_read_bytes_total", "Bytes of its input the source of the task has read.")
	descBytesTotal = taskDesc("floe_source_input_bytes", "Size of the input the source of the task reads, for a bounded file source.")
	descPartLag    = prometheus.NewDesc("floe_source_partition_lag_records", "Records of a partition (Kafka) not yet read by the source, as of its last fetch.",
		append(taskLabelNames[:len(taskLabelNames):len(taskLabelNames)], "topic", "partition"), nil)

	taskDescs = []*prometheus.Desc{descRecordsIn, descRecordsOut, descBusy, descIdle, descBackPressure, descSideDropped,
		descInWM, descOutWM, descLag, descQueued, descCheckpoints, descAlign, descLastAlign,
		descOpIn, descOpOut, descOpLate, descCalls, descCallTime, descYields, descMemory, descInBytes, descStateKeys, descStateBytes,
		descBytesRead, descBytesTotal, descPartLag}
)

// taskCollector turns the Exporter's tasks into metrics at scrape time.
type taskCollector struct{ e *Exporter }

// Describe implements prometheus.Collector.
func (c taskCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range taskDescs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c taskCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.e.samples() {
		collectTask(ch, &s)
	}
}

func collectTask(ch chan<- prometheus.Metric, s *sample) {
	l := []string{s.labels.job, s.labels.jobName, s.labels.vertex, s.labels.subtask}
	counter := func(d *prometheus.Desc, v float64, lv []string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, lv...)
	}
	gauge := func(d *prometheus.Desc, v float64, lv []string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, lv...)
	}
	counter(descRecordsIn, float64(s.in), l)
	counter(descRecordsOut, float64(s.out), l)
	counter(descBusy, s.busy.Seconds(), l)
	counter(descIdle, s.idle.Seconds(), l)
	counter(descBackPressure, s.blocked.Seconds(), l)
	counter(descSideDropped, float64(s.sideDrop), l)
	if known(s.inWM) {
		gauge(descInWM, unixSeconds(s.inWM), l)
		gauge(descLag, s.lag.Seconds(), l)
	}
	if known(s.outWM) {
		gauge(descOutWM, unixSeconds(s.outWM), l)
	}
	if s.queued >= 0 {
		gauge(descQueued, float64(s.queued), l)
	}
	counter(descCheckpoints, float64(s.checkpoints), l)
	counter(descAlign, s.align.Seconds(), l)
	if s.checkpoints > 0 {
		gauge(descLastAlign, s.lastAlign.Seconds(), l)
	}
	if s.bytesRead >= 0 {
		counter(descBytesRead, float64(s.bytesRead), l)
	}
	if s.bytesTotal >= 0 {
		gauge(descBytesTotal, float64(s.bytesTotal), l)
	}
	for _, p := range s.lags {
		gauge(descPartLag, float64(p.Records), append(l[:len(l):len(l)], p.Topic, strconv.Itoa(int(p.Partition))))
	}
	for i := range s.ops {
		o := &s.ops[i]
		ol := append(l[:len(l):len(l)], o.uid)
		counter(descOpIn, float64(o.in), ol)
		counter(descOpOut, float64(o.out), ol)
		if o.window {
			counter(descOpLate, float64(o.late), ol)
		}
		if o.guest {
			counter(descCalls, float64(o.calls), ol)
			counter(descCallTime, o.callTime.Seconds(), ol)
			counter(descYields, float64(o.yields), ol)
			gauge(descMemory, float64(o.memoryBytes), ol)
			counter(descInBytes, float64(o.batchBytes), ol)
		}
		if o.stateful {
			gauge(descStateKeys, float64(o.stateKeys), ol)
			gauge(descStateBytes, float64(o.stateBytes), ol)
		}
	}
}

// known tells whether a watermark is a point in time: not "none yet" and
// not the end of input.
func known(wm int64) bool { return wm != record.NoTimestamp && wm != eventtime.Max }

func unixSeconds(ms int64) float64 { return float64(ms) / 1e3 }

// lookups is the histogram of queryable-state lookups, its children
// resolved once.
type lookups struct {
	hist     *prometheus.HistogramVec
	outcomes map[string]prometheus.Observer
}

// The outcomes of a state lookup, the values of its outcome label.
const (
	LookupOK           = "ok"
	LookupUnknownState = "unknown_state"
	LookupNotQueryable = "not_queryable"
	LookupUnavailable  = "unavailable"
	LookupError        = "error"
)

func newLookups() *lookups {
	l := &lookups{
		hist: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "floe_state_lookup_seconds",
			Help: "Latency of the queryable-state lookups this task manager served, by outcome; _count is lookups by outcome.",
			// 100 µs to ~3 s.
			Buckets: prometheus.ExponentialBuckets(100e-6, 2, 16),
		}, []string{"outcome"}),
		outcomes: map[string]prometheus.Observer{},
	}
	for _, o := range []string{LookupOK, LookupUnknownState, LookupNotQueryable, LookupUnavailable, LookupError} {
		l.outcomes[o] = l.hist.WithLabelValues(o)
	}
	return l
}

// ObserveLookup counts a state lookup that ended with outcome (one of the
// Lookup constants; another counts as LookupError) after d.
func (e *Exporter) ObserveLookup(outcome string, d time.Duration) {
	o, ok := e.lookups.outcomes[outcome]
	if !ok {
		o = e.lookups.outcomes[LookupError]
	}
	o.Observe(d.Seconds())
}
