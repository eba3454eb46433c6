package minicluster

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/textgen"
)

// scraped is one scrape of /metrics, parsed by Prometheus's own parser.
type scraped map[string]*dto.MetricFamily

// scrape fetches and parses the metrics at addr.
func scrape(t testing.TB, addr string) scraped {
	t.Helper()
	// NB: no keep-alive, so that no connection outlives the test (goleak).
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// sum adds up the values of metric name over the series whose labels
// include every pair of want; ok is false when no series matches.
func (s scraped) sum(name string, want map[string]string) (total float64, ok bool) {
	f := s[name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.Metric {
		if !hasLabels(m, want) {
			continue
		}
		ok = true
		switch {
		case m.Counter != nil:
			total += m.Counter.GetValue()
		case m.Gauge != nil:
			total += m.Gauge.GetValue()
		case m.Histogram != nil:
			total += float64(m.Histogram.GetSampleCount())
		}
	}
	return total, ok
}

func (s scraped) mustSum(t testing.TB, name string, want map[string]string) float64 {
	t.Helper()
	v, ok := s.sum(name, want)
	if !ok {
		t.Fatalf("no series of %s with labels %v", name, want)
	}
	return v
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	n := 0
	for _, l := range m.Label {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(want)
}

// vertexNames returns the names of the job's vertices, by stage.
func vertexNames(t testing.TB, c *Cluster, id string) []string {
	t.Helper()
	st, err := c.Scheduler.Job(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(st.Vertices))
	for _, v := range st.Vertices {
		names[v.Stage] = v.Name
	}
	return names
}

// awaitEnd waits for the job to reach a terminal state.
func awaitEnd(t testing.TB, c *Cluster, id string) api.JobStatus {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		st, err := c.Scheduler.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if api.Terminal(st.State) {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("job %s did not end within 5 minutes", id)
	return api.JobStatus{}
}

// TestMetricsCountTheRecordsFed runs word count over a text whose lines
// and words the test counts itself, then scrapes the task managers'
// /metrics: the counts of every task and operator add up to the input, and
// the file source has read every byte of the file.
func TestMetricsCountTheRecordsFed(t *testing.T) {
	dir := t.TempDir()
	var text bytes.Buffer
	if err := textgen.Write(&text, 10_000, 11); err != nil {
		t.Fatal(err)
	}
	lines := float64(bytes.Count(text.Bytes(), []byte("\n")))
	var words float64
	for _, n := range textgen.Count(text.Bytes()) {
		words += float64(n)
	}
	input := filepath.Join(dir, "input.txt")
	if err := os.WriteFile(input, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Start(context.Background(), Config{DataDir: dir, TaskManagers: 2, Slots: 1, MetricsAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	id, err := c.Scheduler.Submit(context.Background(), wordcount(t, dir, input, filepath.Join(dir, "out"), "", 2))
	if err != nil {
		t.Fatal(err)
	}
	if st := awaitEnd(t, c, id); st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	vertices := vertexNames(t, c, id)
	if len(vertices) != 2 {
		t.Fatalf("vertices %q, want 2", vertices)
	}
	m := scrape(t, c.MetricsAddr())
	job := map[string]string{"job": id}
	stage := func(i int) map[string]string { return map[string]string{"job": id, "vertex": vertices[i]} }
	op := func(uid string) map[string]string { return map[string]string{"job": id, "operator": uid} }
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"floe_task_records_in_total", stage(0), lines},
		{"floe_task_records_out_total", stage(0), words},
		{"floe_task_records_in_total", stage(1), words},
		{"floe_task_records_out_total", stage(1), words}, // one count update per word
		{"floe_operator_records_in_total", op("split"), lines},
		{"floe_operator_records_out_total", op("split"), words},
		{"floe_operator_records_in_total", op("by-word"), words},
		{"floe_operator_records_in_total", op("count"), words},
		{"floe_operator_records_out_total", op("count"), words},
		{"floe_task_side_output_dropped_records_total", job, 0},
		// The split operator gets each line without its "\n", after the
		// 16 bytes of lengths and timestamp the ABI gives every record.
		{"floe_operator_input_bytes_total", op("split"), 16*lines + float64(text.Len()) - lines},
		{"floe_source_input_bytes", stage(0), float64(text.Len())},
		{"floe_source_read_bytes_total", stage(0), float64(text.Len())},
	} {
		if got := m.mustSum(t, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	// Each stage runs as 2 subtasks, one on each task manager.
	if f := m["floe_task_records_in_total"]; len(f.GetMetric()) != 4 {
		t.Errorf("floe_task_records_in_total has %d series, want 4 (2 stages x 2 subtasks)", len(f.GetMetric()))
	}
	for _, uid := range []string{"split", "count"} {
		if calls := m.mustSum(t, "floe_operator_guest_calls_total", op(uid)); calls < 2 {
			t.Errorf("%s: %v guest calls", uid, calls)
		}
		if s := m.mustSum(t, "floe_operator_guest_call_seconds_total", op(uid)); s <= 0 {
			t.Errorf("%s: %v s in guest calls", uid, s)
		}
		for _, sub := range []string{"0", "1"} {
			l := op(uid)
			l["subtask"] = sub
			if b := m.mustSum(t, "floe_operator_guest_memory_bytes", l); b <= 0 || int64(b)%65536 != 0 {
				t.Errorf("%s subtask %s: guest memory %v bytes, want a positive multiple of 64 KiB", uid, sub, b)
			}
		}
	}
	if _, ok := m.sum("floe_operator_guest_calls_total", op("by-word")); ok {
		t.Error("the built-in keyBy on the value reports guest calls")
	}
	busy := m.mustSum(t, "floe_task_busy_seconds_total", job)
	idle := m.mustSum(t, "floe_task_idle_seconds_total", job)
	if busy <= 0 || idle < 0 {
		t.Errorf("busy %v s, idle %v s", busy, idle)
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if m[name] == nil {
			t.Errorf("no %s: the runtime collectors are missing", name)
		}
	}
}

// slowJob sends count records from a generator through a keyBy to a
// deliberately slow map (about 1 ms a record) and a file sink.
const slowJob = `
name: slow
parallelism: 1
modules:
  testops: testops.wasm
source: {type: generator, uid: gen, count: %d}
operators:
  - {type: keyBy, uid: by-value, key: value}
  - {type: map, uid: slow, module: testops, function: slow}
sink: {type: file, uid: out, path: "%s"}
`

// TestMetricsShowWhereBackPressureIs runs a slow operator behind a fast
// source and takes two scrapes a second apart while it runs: over that
// second the source's stage was mostly back-pressured, and the slow stage
// mostly busy and not back-pressured. Once the job ends, the slow stage
// has seen every record.
func TestMetricsShowWhereBackPressureIs(t *testing.T) {
	dir := t.TempDir()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := wasmbuild.Go(filepath.Join(root, "udfs", "testops"), dir)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	const count = 6000
	c, err := Start(context.Background(), Config{DataDir: dir, MetricsAddr: "127.0.0.1:0", BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	id, err := c.Scheduler.Submit(context.Background(), api.Submission{
		Spec:    []byte(fmt.Sprintf(slowJob, count, filepath.Join(dir, "out"))),
		Modules: map[string][]byte{"testops": mod},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Wait until the slow stage has processed records: the pipeline is
	// full and the source waits for room.
	var vertices []string
	deadline := time.Now().Add(time.Minute)
	for {
		if time.Now().After(deadline) {
			t.Fatal("the slow stage processed nothing within a minute")
		}
		if vertices = vertexNames(t, c, id); len(vertices) == 2 {
			n, _ := scrape(t, c.MetricsAddr()).sum("floe_operator_records_out_total", map[string]string{"operator": "slow"})
			if n > 0 {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	share := func(a, b scraped, name string, stage int) float64 {
		l := map[string]string{"job": id, "vertex": vertices[stage]}
		d := b.mustSum(t, name, l) - a.mustSum(t, name, l)
		all := 0.0
		for _, n := range []string{"floe_task_busy_seconds_total", "floe_task_idle_seconds_total", "floe_task_backpressured_seconds_total"} {
			all += b.mustSum(t, n, l) - a.mustSum(t, n, l)
		}
		return d / all
	}
	before := scrape(t, c.MetricsAddr())
	time.Sleep(time.Second)
	after := scrape(t, c.MetricsAddr())
	if n, _ := after.sum("floe_operator_records_out_total", map[string]string{"operator": "slow"}); n >= count {
		t.Fatalf("the job ended during the measurement (%v records out of the slow map): make it longer", n)
	}
	srcBP := share(before, after, "floe_task_backpressured_seconds_total", 0)
	slowBP := share(before, after, "floe_task_backpressured_seconds_total", 1)
	slowBusy := share(before, after, "floe_task_busy_seconds_total", 1)
	t.Logf("over 1 s: source stage back-pressured %.0f%%; slow stage busy %.0f%%, back-pressured %.0f%%", 100*srcBP, 100*slowBusy, 100*slowBP)
	if srcBP < 0.5 {
		t.Errorf("the source's stage was back-pressured %.0f%% of the time, want most of it", 100*srcBP)
	}
	if slowBusy < 0.5 || slowBP > 0.1 {
		t.Errorf("the slow stage was busy %.0f%% and back-pressured %.0f%% of the time, want busy and not back-pressured", 100*slowBusy, 100*slowBP)
	}
	// The scheduler's figures, from heartbeats, tell the same: the
	// source's stage back-pressured, the slow stage, which writes to a
	// fast sink, not.
	jm := awaitFigures(t, c, id, func(m api.JobMetrics) bool { return m.Vertices[0].BackPressured > 0.5 })
	if bp := jm.Vertices[1].BackPressured; bp > 0.1 {
		t.Errorf("the scheduler has the slow stage back-pressured %.0f%% of a heartbeat interval, want little", 100*bp)
	}
	// The slow stage's inbox holds what the source sent ahead of it.
	if q := after.mustSum(t, "floe_task_input_queue_length", map[string]string{"job": id, "vertex": vertices[1]}); q < 1 {
		t.Errorf("the slow stage's inbox holds %v messages, want the batches waiting for it", q)
	}
	if st := awaitEnd(t, c, id); st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	end := scrape(t, c.MetricsAddr())
	if got := end.mustSum(t, "floe_operator_records_in_total", map[string]string{"job": id, "operator": "slow"}); got != count {
		t.Errorf("the slow map got %v records, want the %d the generator was asked for", got, count)
	}
}

// awaitFigures reads the job's metrics from the scheduler until ok holds
// for them, for up to 5 heartbeats, and returns them; it fails the test
// with the last ones if ok never holds.
func awaitFigures(t testing.TB, c *Cluster, id string, ok func(api.JobMetrics) bool) api.JobMetrics {
	t.Helper()
	var m api.JobMetrics
	for range 50 {
		var err error
		if m, err = c.Scheduler.JobMetrics(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		if len(m.Vertices) > 0 && ok(m) {
			return m
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the scheduler's figures never became as expected; the last: %+v", m)
	return m
}
