package schedmetrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/floe-stream/floe/scheduler/api"
)

// jobStates are the values of floe_job_state's state label: every job has
// a series for each, 1 for the state it is in.
var jobStates = []string{api.JobWaiting, api.JobDeploying, api.JobRunning, api.JobRestarting, api.JobFinished, api.JobFailed, api.JobCanceled}

var (
	jobLabels    = []string{"job", "job_name"}
	vertexLabels = []string{"job", "job_name", "vertex"}
	// operatorLabels add the operator's uid to vertexLabels.
	operatorLabels = []string{"job", "job_name", "vertex", "operator"}

	descLeader       = prometheus.NewDesc("floe_scheduler_leader", "1 when this scheduler leads its group, else 0.", nil, nil)
	descTerm         = prometheus.NewDesc("floe_scheduler_term", "The replicated job log's current term; it grows with every election.", nil, nil)
	descTaskManagers = prometheus.NewDesc("floe_cluster_task_managers", "Live task managers registered with the scheduler.", nil, nil)
	descSlots        = prometheus.NewDesc("floe_cluster_slots", "Task slots of the live task managers.", nil, nil)
	descFreeSlots    = prometheus.NewDesc("floe_cluster_slots_free", "Task slots that no job holds.", nil, nil)

	descState         = prometheus.NewDesc("floe_job_state", "1 for the state the job is in, 0 for the others.", append(jobLabels, "state"), nil)
	descRestarts      = prometheus.NewDesc("floe_job_restarts_total", "Restarts of the job after a failed attempt.", jobLabels, nil)
	descRescales      = prometheus.NewDesc("floe_job_rescales_total", "Rescales of the job that completed.", jobLabels, nil)
	descRestartDown   = prometheus.NewDesc("floe_job_last_restart_downtime_seconds", "Time from the failure of an attempt to the next attempt running, for the job's last restart.", jobLabels, nil)
	descRescaleDown   = prometheus.NewDesc("floe_job_last_rescale_downtime_seconds", "Time from stopping the old attempt to the new one running, for the job's last rescale.", jobLabels, nil)
	descCkptCompleted = prometheus.NewDesc("floe_job_checkpoints_completed_total", "Checkpoints of the job that completed.", jobLabels, nil)
	descCkptFailed    = prometheus.NewDesc("floe_job_checkpoints_failed_total", "Checkpoints of the job that failed or were abandoned.", jobLabels, nil)
	descCkptDuration  = prometheus.NewDesc("floe_job_last_checkpoint_duration_seconds", "Time from trigger to completion of the job's last completed checkpoint.", jobLabels, nil)
	descCkptSize      = prometheus.NewDesc("floe_job_last_checkpoint_size_bytes", "Size of all state the job's last completed checkpoint refers to.", jobLabels, nil)
	descCkptIncr      = prometheus.NewDesc("floe_job_last_checkpoint_incremental_size_bytes", "Bytes the job's last completed checkpoint uploaded.", jobLabels, nil)

	descAutoscaler   = prometheus.NewDesc("floe_job_autoscaler_enabled", "1 for a job whose autoscaler is on; absent when it is off.", jobLabels, nil)
	descAutoRescales = prometheus.NewDesc("floe_job_autoscaler_rescales_total", "Rescales the job's autoscaler started.", jobLabels, nil)
	descAutoMissing  = prometheus.NewDesc("floe_job_autoscaler_slots_missing", "Slots the autoscaler's latest decision needed and the cluster did not have.", jobLabels, nil)
	descAutoSkewed   = prometheus.NewDesc("floe_job_autoscaler_skewed_vertices", "Vertices whose parallelism skew limited in the autoscaler's latest decision.", jobLabels, nil)
	descParallelism  = prometheus.NewDesc("floe_job_vertex_parallelism", "The stage's parallelism in the job's plan.", vertexLabels, nil)

	descRecordsIn  = prometheus.NewDesc("floe_job_vertex_records_in_total", "Records the stage's subtasks read, as of their last heartbeats.", vertexLabels, nil)
	descRecordsOut = prometheus.NewDesc("floe_job_vertex_records_out_total", "Records the stage's subtasks handed on, as of their last heartbeats.", vertexLabels, nil)
	descStateBytes = prometheus.NewDesc("floe_job_vertex_checkpointed_state_bytes", "Size of the stage's state in the job's last completed checkpoint.", vertexLabels, nil)
	descOpKeys     = prometheus.NewDesc("floe_job_operator_state_keys", "Entries of the operator's live keyed state over all its subtasks, as of their last heartbeats.", operatorLabels, nil)
	descOpBytes    = prometheus.NewDesc("floe_job_operator_state_bytes", "Bytes (keys and values as stored) of the operator's live keyed state over all its subtasks, as of their last heartbeats.", operatorLabels, nil)
)

// Collector is a prometheus.Collector of the scheduler's state: each
// Collect calls read once.
type Collector struct {
	read func() Snapshot
}

// NewCollector returns a Collector of the snapshots read returns. read is
// called once per scrape, from the scraping goroutine.
func NewCollector(read func() Snapshot) *Collector { return &Collector{read: read} }

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descLeader, descTerm, descTaskManagers, descSlots, descFreeSlots, descState,
		descRestarts, descRescales, descRestartDown, descRescaleDown, descCkptCompleted, descCkptFailed, descCkptDuration,
		descCkptSize, descCkptIncr, descAutoscaler, descAutoRescales, descAutoMissing, descAutoSkewed, descParallelism, descRecordsIn, descRecordsOut, descStateBytes, descOpKeys, descOpBytes} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.read()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descLeader, boolValue(s.Leader))
	gauge(descTerm, float64(s.Term))
	gauge(descTaskManagers, float64(s.TaskManagers))
	gauge(descSlots, float64(s.Slots))
	gauge(descFreeSlots, float64(s.FreeSlots))
	for i := range s.Jobs {
		collectJob(ch, &s.Jobs[i])
	}
}

func collectJob(ch chan<- prometheus.Metric, j *Job) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append([]string{j.ID, j.Name}, labels...)...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, append([]string{j.ID, j.Name}, labels...)...)
	}
	for _, st := range jobStates {
		gauge(descState, boolValue(j.State == st), st)
	}
	counter(descRestarts, float64(j.Restarts))
	counter(descRescales, float64(j.Rescales))
	if j.LastRestartDowntime > 0 {
		gauge(descRestartDown, j.LastRestartDowntime.Seconds())
	}
	if j.LastRescaleDowntime > 0 {
		gauge(descRescaleDown, j.LastRescaleDowntime.Seconds())
	}
	counter(descCkptCompleted, float64(j.CheckpointsCompleted))
	counter(descCkptFailed, float64(j.CheckpointsFailed))
	if cp := j.LastCheckpoint; cp != nil {
		gauge(descCkptDuration, cp.Duration.Seconds())
		gauge(descCkptSize, float64(cp.FullBytes))
		gauge(descCkptIncr, float64(cp.IncrementalBytes))
	}
	if a := j.Autoscaler; a != nil {
		gauge(descAutoscaler, 1)
		counter(descAutoRescales, float64(a.Rescales))
		gauge(descAutoMissing, float64(a.SlotsMissing))
		gauge(descAutoSkewed, float64(a.SkewedVertices))
	}
	for _, v := range j.Vertices {
		gauge(descParallelism, float64(v.Parallelism), v.Name)
		counter(descRecordsIn, float64(v.RecordsIn), v.Name)
		counter(descRecordsOut, float64(v.RecordsOut), v.Name)
		if v.StateBytes >= 0 {
			gauge(descStateBytes, float64(v.StateBytes), v.Name)
		}
		for _, o := range v.Operators {
			gauge(descOpKeys, float64(o.Keys), v.Name, o.Operator)
			gauge(descOpBytes, float64(o.Bytes), v.Name, o.Operator)
		}
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Metrics are the scheduler's metrics in a registry of their own: the
// Collector, the REST API's requests and the Go runtime and process
// collectors. It is safe for concurrent use.
type Metrics struct {
	reg  *prometheus.Registry
	rest *requests
}

// New returns the scheduler's metrics, reading its state with read at
// every scrape.
func New(read func() Snapshot) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), rest: newRequests()}
	m.reg.MustRegister(NewCollector(read), m.rest.latency, m.rest.refused,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in Prometheus's exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}
