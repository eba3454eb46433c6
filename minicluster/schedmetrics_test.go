package minicluster

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/textgen"
)

// TestSchedulerMetrics runs word count over a text whose lines and words
// the test counts itself, with checkpoints, and reads the scheduler's
// figures of it: its /metrics, scraped and parsed as Prometheus would,
// and GET /v1/jobs/{id}/metrics. Both count the records the test fed, by
// stage; requests the API refuses show by route and status code.
func TestSchedulerMetrics(t *testing.T) {
	dir := t.TempDir()
	var text bytes.Buffer
	if err := textgen.Write(&text, 10_000, 5); err != nil {
		t.Fatal(err)
	}
	lines := int64(bytes.Count(text.Bytes(), []byte("\n")))
	var words int64
	for _, n := range textgen.Count(text.Bytes()) {
		words += n
	}
	input := filepath.Join(dir, "input.txt")
	if err := os.WriteFile(input, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Start(context.Background(), Config{DataDir: dir, TaskManagers: 2, Slots: 1, RESTAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	sub := wordcount(t, dir, input, filepath.Join(dir, "out"), "", 2)
	sub.CheckpointInterval = 50 * time.Millisecond
	id, err := c.Scheduler.Submit(context.Background(), sub)
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
	base := "http://" + c.Scheduler.RESTAddr()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	refusals := []struct {
		method, path, body string
		route              string
		code               int
	}{
		{"GET", "/v1/jobs/nosuchjob", "", "GET /v1/jobs/{id}", 404},
		{"GET", "/v1/jobs/nosuchjob/metrics", "", "GET /v1/jobs/{id}/metrics", 404},
		{"POST", "/v1/jobs", "not a form", "POST /v1/jobs", 400},
	}
	for _, r := range refusals {
		req, err := http.NewRequest(r.method, base+r.path, strings.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != r.code {
			t.Fatalf("%s %s: %s, want %d", r.method, r.path, resp.Status, r.code)
		}
	}

	m := scrape(t, c.Scheduler.RESTAddr())
	job := map[string]string{"job": id, "job_name": "wordcount"}
	stage := func(i int) map[string]string { return map[string]string{"job": id, "vertex": vertices[i]} }
	for _, w := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"floe_job_vertex_records_in_total", stage(0), float64(lines)},
		{"floe_job_vertex_records_out_total", stage(0), float64(words)},
		{"floe_job_vertex_records_in_total", stage(1), float64(words)},
		{"floe_job_state", map[string]string{"job": id, "state": "FINISHED"}, 1},
		{"floe_job_state", map[string]string{"job": id, "state": "RUNNING"}, 0},
		{"floe_job_restarts_total", job, 0},
		{"floe_cluster_task_managers", nil, 2},
		{"floe_cluster_slots", nil, 2},
		{"floe_cluster_slots_free", nil, 2},
		{"floe_scheduler_leader", nil, 1},
	} {
		if got := m.mustSum(t, w.name, w.labels); got != w.want {
			t.Errorf("%s%v = %v, want %v", w.name, w.labels, got, w.want)
		}
	}
	for _, r := range refusals {
		l := map[string]string{"route": r.route, "code": strconv.Itoa(r.code)}
		if got := m.mustSum(t, "floe_rest_requests_refused_total", l); got != 1 {
			t.Errorf("floe_rest_requests_refused_total%v = %v, want 1", l, got)
		}
		if got := m.mustSum(t, "floe_rest_request_duration_seconds", l); got != 1 {
			t.Errorf("floe_rest_request_duration_seconds_count%v = %v, want 1", l, got)
		}
	}
	if _, ok := m.sum("floe_rest_request_duration_seconds", map[string]string{"route": "GET /v1/jobs/nosuchjob"}); ok {
		t.Error("a request's raw path is a route label")
	}

	var jm api.JobMetrics
	resp, err := client.Get(base + "/v1/jobs/" + id + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&jm)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/jobs/%s/metrics: %s, %v", id, resp.Status, err)
	}
	if len(jm.Vertices) != 2 {
		t.Fatalf("%d vertices, want 2", len(jm.Vertices))
	}
	want := []struct{ in, out int64 }{{lines, words}, {words, -1}}
	for i, v := range jm.Vertices {
		if v.Parallelism != 2 || len(v.Subtasks) != 2 {
			t.Errorf("vertex %d: parallelism %d with %d subtasks, want 2", i, v.Parallelism, len(v.Subtasks))
		}
		if v.RecordsIn != want[i].in || (want[i].out >= 0 && v.RecordsOut != want[i].out) {
			t.Errorf("vertex %d: records in %d out %d, want in %d out %d", i, v.RecordsIn, v.RecordsOut, want[i].in, want[i].out)
		}
		var in int64
		for _, s := range v.Subtasks {
			in += s.RecordsIn
			if s.TaskManager == "" || s.State != api.TaskFinished {
				t.Errorf("vertex %d subtask %d: on %q, %s", i, s.Subtask, s.TaskManager, s.State)
			}
		}
		if in != v.RecordsIn {
			t.Errorf("vertex %d: its subtasks read %d records, the vertex %d", i, in, v.RecordsIn)
		}
	}
	if p := jm.Vertices[0].Progress; p == nil || p.BytesRead != int64(text.Len()) || p.BytesTotal != int64(text.Len()) {
		t.Errorf("source progress %+v, want all %d bytes read", p, text.Len())
	}
	if p := jm.Vertices[1].Progress; p != nil {
		t.Errorf("the second stage reports source progress %+v", p)
	}
	// The checkpoint counts agree with the job's list of checkpoints.
	cps, err := c.Scheduler.Checkpoints(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var completed int64
	for _, cp := range cps {
		if cp.Status == api.CheckpointCompleted {
			completed++
		}
	}
	if jm.Checkpoints == nil || jm.Checkpoints.Completed != completed {
		t.Errorf("checkpoint summary %+v, want %d completed", jm.Checkpoints, completed)
	}
	if got := m.mustSum(t, "floe_job_checkpoints_completed_total", job); got != float64(completed) {
		t.Errorf("floe_job_checkpoints_completed_total = %v, want %d", got, completed)
	}
}
