package schedmetrics_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/floe-stream/floe/scheduler/internal/schedmetrics"
)

// scrape serves m's metrics once and parses them with Prometheus's parser.
func scrape(t *testing.T, m *schedmetrics.Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// value returns the value of the series of name with exactly labels, and
// whether there is one.
func value(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.Metric {
		if len(m.Label) != len(labels) {
			continue
		}
		match := true
		for _, l := range m.Label {
			if labels[l.GetName()] != l.GetValue() {
				match = false
			}
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

func TestCollectorExportsTheSnapshot(t *testing.T) {
	snap := schedmetrics.Snapshot{
		Leader: true, Term: 3, TaskManagers: 2, Slots: 8, FreeSlots: 5,
		Jobs: []schedmetrics.Job{{
			ID: "a1", Name: "wordcount", State: "RUNNING", Restarts: 2, Rescales: 1,
			LastRestartDowntime: 1500 * time.Millisecond, CheckpointsCompleted: 7, CheckpointsFailed: 1,
			LastCheckpoint: &schedmetrics.Checkpoint{Duration: 250 * time.Millisecond, FullBytes: 4096, IncrementalBytes: 512},
			Autoscaler:     &schedmetrics.Autoscaler{Rescales: 3, SlotsMissing: 2, SkewedVertices: 1},
			Vertices: []schedmetrics.Vertex{
				{Name: "lines -> split", Parallelism: 2, RecordsIn: 100, RecordsOut: 600, StateBytes: 0},
				{Name: "count -> out", RecordsIn: 600, RecordsOut: 42, StateBytes: 4096,
					Operators: []schedmetrics.OperatorState{{Operator: "count", Keys: 17, Bytes: 900}, {Operator: "dedup", Keys: 3, Bytes: 60}}},
			},
		}, {
			ID: "b2", Name: "idle", State: "WAITING",
			Vertices: []schedmetrics.Vertex{{Name: "gen -> out", StateBytes: -1}},
		}},
	}
	reads := 0
	m := schedmetrics.New(func() schedmetrics.Snapshot { reads++; return snap })
	fams := scrape(t, m)
	if reads != 1 {
		t.Errorf("a scrape read the snapshot %d times, want 1", reads)
	}
	a := map[string]string{"job": "a1", "job_name": "wordcount"}
	with := func(base map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for bk, bv := range base {
			out[bk] = bv
		}
		return out
	}
	tests := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"floe_scheduler_leader", nil, 1},
		{"floe_scheduler_term", nil, 3},
		{"floe_cluster_task_managers", nil, 2},
		{"floe_cluster_slots", nil, 8},
		{"floe_cluster_slots_free", nil, 5},
		{"floe_job_state", with(a, "state", "RUNNING"), 1},
		{"floe_job_state", with(a, "state", "RESTARTING"), 0},
		{"floe_job_state", map[string]string{"job": "b2", "job_name": "idle", "state": "WAITING"}, 1},
		{"floe_job_restarts_total", a, 2},
		{"floe_job_rescales_total", a, 1},
		{"floe_job_last_restart_downtime_seconds", a, 1.5},
		{"floe_job_checkpoints_completed_total", a, 7},
		{"floe_job_checkpoints_failed_total", a, 1},
		{"floe_job_last_checkpoint_duration_seconds", a, 0.25},
		{"floe_job_last_checkpoint_size_bytes", a, 4096},
		{"floe_job_last_checkpoint_incremental_size_bytes", a, 512},
		{"floe_job_autoscaler_enabled", a, 1},
		{"floe_job_autoscaler_rescales_total", a, 3},
		{"floe_job_autoscaler_slots_missing", a, 2},
		{"floe_job_autoscaler_skewed_vertices", a, 1},
		{"floe_job_vertex_parallelism", with(a, "vertex", "lines -> split"), 2},
		{"floe_job_vertex_records_in_total", with(a, "vertex", "lines -> split"), 100},
		{"floe_job_vertex_records_out_total", with(a, "vertex", "count -> out"), 42},
		{"floe_job_vertex_checkpointed_state_bytes", with(a, "vertex", "count -> out"), 4096},
		{"floe_job_operator_state_keys", with(with(a, "vertex", "count -> out"), "operator", "count"), 17},
		{"floe_job_operator_state_bytes", with(with(a, "vertex", "count -> out"), "operator", "count"), 900},
		{"floe_job_operator_state_keys", with(with(a, "vertex", "count -> out"), "operator", "dedup"), 3},
	}
	for _, tt := range tests {
		got, ok := value(fams, tt.name, tt.labels)
		if !ok {
			t.Errorf("no series %s%v", tt.name, tt.labels)
			continue
		}
		if got != tt.want {
			t.Errorf("%s%v = %v, want %v", tt.name, tt.labels, got, tt.want)
		}
	}
	// What a job does not have yet is absent rather than 0.
	absent := []struct {
		name   string
		labels map[string]string
	}{
		{"floe_job_last_rescale_downtime_seconds", a},
		{"floe_job_last_checkpoint_duration_seconds", map[string]string{"job": "b2", "job_name": "idle"}},
		{"floe_job_vertex_checkpointed_state_bytes", map[string]string{"job": "b2", "job_name": "idle", "vertex": "gen -> out"}},
		{"floe_job_operator_state_keys", map[string]string{"job": "a1", "job_name": "wordcount", "vertex": "lines -> split", "operator": "split"}},
	}
	for _, tt := range absent {
		if v, ok := value(fams, tt.name, tt.labels); ok {
			t.Errorf("%s%v = %v, want no series", tt.name, tt.labels, v)
		}
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if fams[name] == nil {
			t.Errorf("no %s: the runtime collectors are missing", name)
		}
	}
}

func TestObserveRequestCountsRefusals(t *testing.T) {
	m := schedmetrics.New(func() schedmetrics.Snapshot { return schedmetrics.Snapshot{} })
	m.ObserveRequest("GET /v1/jobs/{id}", 200, 3*time.Millisecond)
	m.ObserveRequest("GET /v1/jobs/{id}", 404, time.Millisecond)
	m.ObserveRequest("GET /v1/jobs/{id}", 404, time.Millisecond)
	m.ObserveRequest("POST /v1/jobs", 400, time.Millisecond)
	m.ObserveRequest("POST /v1/jobs", 503, time.Millisecond)
	fams := scrape(t, m)
	tests := []struct {
		name, route, code string
		want              float64
		present           bool
	}{
		{"floe_rest_request_duration_seconds", "GET /v1/jobs/{id}", "200", 1, true},
		{"floe_rest_request_duration_seconds", "GET /v1/jobs/{id}", "404", 2, true},
		{"floe_rest_request_duration_seconds", "POST /v1/jobs", "503", 1, true},
		{"floe_rest_requests_refused_total", "GET /v1/jobs/{id}", "404", 2, true},
		{"floe_rest_requests_refused_total", "POST /v1/jobs", "400", 1, true},
		// A 5xx is the scheduler's failure, not a refusal; a 2xx neither.
		{"floe_rest_requests_refused_total", "POST /v1/jobs", "503", 0, false},
		{"floe_rest_requests_refused_total", "GET /v1/jobs/{id}", "200", 0, false},
	}
	for _, tt := range tests {
		got, ok := value(fams, tt.name, map[string]string{"route": tt.route, "code": tt.code})
		if ok != tt.present || got != tt.want {
			t.Errorf("%s{route=%q,code=%s} = %v (present %v), want %v (present %v)", tt.name, tt.route, tt.code, got, ok, tt.want, tt.present)
		}
	}
	if h := fams["floe_rest_request_duration_seconds"]; h == nil || !strings.Contains(h.GetHelp(), "route") {
		t.Errorf("the latency histogram has no help naming its route label")
	}
}
