package metrics

import (
	"crypto/tls"
	"net/http"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"

	"github.com/floe-stream/floe/host/record"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// serve serves e on a free port until the test ends.
func serve(t *testing.T, e *Exporter) string {
	t.Helper()
	return serveTLS(t, e, nil)
}

// serveTLS is serve over TLS with tc (plaintext when nil).
func serveTLS(t *testing.T, e *Exporter, tc *tls.Config) string {
	t.Helper()
	s, err := Listen("127.0.0.1:0", e, tc)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := s.Serve(); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		wg.Wait()
	})
	return s.Addr()
}

// scrape parses the metrics at addr with Prometheus's parser.
func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.Label {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// finished adds a finished task's sample to e directly, as AddTask's done
// leaves it, until until.
func finished(e *Exporter, k slot, s sample, until time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tasks[k] = &entry{labels: s.labels, final: &s, until: until}
}

func TestTaskSampleBecomesLabelledMetrics(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	e := New(Config{Now: func() time.Time { return now }, NoRuntime: true})
	s := sample{
		labels: taskLabels{job: "j1", jobName: "wordcount", vertex: "lines -> split -> by-word", subtask: "1"},
		in:     100, out: 250, busy: 3 * time.Second, idle: time.Second, blocked: 500 * time.Millisecond,
		inWM: now.Add(-2 * time.Second).UnixMilli(), outWM: record.NoTimestamp, lag: 2 * time.Second,
		ops: []opSample{
			{uid: "split", kind: "flatMap", in: 100, out: 250, guest: true, calls: 3, callTime: time.Second, yields: 7, memoryBytes: 2 << 16,
				stateful: true, stateKeys: 42, stateBytes: 1234},
			{uid: "by-word", kind: "keyBy", in: 250, out: 250},
		},
	}
	finished(e, slot{"j1", 0, 1}, s, now.Add(time.Minute))
	m := scrape(t, serve(t, e))
	want := map[string]float64{
		"floe_task_records_in_total":             100,
		"floe_task_records_out_total":            250,
		"floe_task_busy_seconds_total":           3,
		"floe_task_idle_seconds_total":           1,
		"floe_task_backpressured_seconds_total":  0.5,
		"floe_task_input_watermark_seconds":      float64(now.Unix() - 2),
		"floe_task_event_time_lag_seconds":       2,
		"floe_operator_guest_calls_total":        3,
		"floe_operator_guest_call_seconds_total": 1,
		"floe_operator_fuel_yields_total":        7,
		"floe_operator_guest_memory_bytes":       2 << 16,
		"floe_operator_state_keys":               42,
		"floe_operator_state_bytes":              1234,
	}
	for name, v := range want {
		f := m[name]
		if f == nil || len(f.Metric) != 1 {
			t.Errorf("%s: %v, want one series", name, f)
			continue
		}
		got := f.Metric[0].GetCounter().GetValue() + f.Metric[0].GetGauge().GetValue()
		if got != v {
			t.Errorf("%s = %v, want %v", name, got, v)
		}
		l := labels(f.Metric[0])
		if l["job"] != "j1" || l["job_name"] != "wordcount" || l["vertex"] != "lines -> split -> by-word" || l["subtask"] != "1" {
			t.Errorf("%s labels %v", name, l)
		}
	}
	if f := m["floe_operator_records_in_total"]; len(f.GetMetric()) != 2 {
		t.Errorf("floe_operator_records_in_total: %v, want a series per operator", f)
	}
	for _, name := range []string{"floe_task_output_watermark_seconds", "floe_operator_late_records_total", "floe_task_checkpoint_alignment_seconds", "go_goroutines"} {
		if m[name] != nil {
			t.Errorf("%s is exported, want it absent: %v", name, m[name])
		}
	}
}

func TestFinishedTasksGoAfterTheirRetention(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	e := New(Config{Now: func() time.Time { return now }, NoRuntime: true})
	s := sample{labels: taskLabels{job: "j", subtask: "0"}, in: 5}
	finished(e, slot{"j", 0, 0}, s, now.Add(time.Minute))
	if n := len(e.samples()); n != 1 {
		t.Fatalf("%d samples within the retention, want 1", n)
	}
	now = now.Add(time.Minute + time.Second)
	if n := len(e.samples()); n != 0 {
		t.Fatalf("%d samples after the retention, want 0", n)
	}
}

func TestLookupsByOutcome(t *testing.T) {
	e := New(Config{})
	e.ObserveLookup(LookupOK, time.Millisecond)
	e.ObserveLookup(LookupOK, 2*time.Millisecond)
	e.ObserveLookup(LookupUnknownState, time.Millisecond)
	e.ObserveLookup("no such outcome", time.Millisecond)
	m := scrape(t, serve(t, e))
	got := map[string]uint64{}
	for _, s := range m["floe_state_lookup_seconds"].GetMetric() {
		got[labels(s)["outcome"]] = s.GetHistogram().GetSampleCount()
	}
	want := map[string]uint64{LookupOK: 2, LookupUnknownState: 1, LookupNotQueryable: 0, LookupUnavailable: 0, LookupError: 1}
	for o, n := range want {
		if got[o] != n {
			t.Errorf("outcome %s: %d lookups, want %d (all: %v)", o, got[o], n, got)
		}
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if m[name] == nil {
			t.Errorf("no %s: the runtime collectors are missing", name)
		}
	}
}
