package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
)

func TestJobMetrics(t *testing.T) {
	want := api.JobMetrics{ID: "j1", Name: "wc", State: api.JobRunning, Vertices: []api.VertexMetrics{{
		Stage: 0, Name: "src", Parallelism: 1,
		TaskFigures: api.TaskFigures{RecordsIn: 7, Progress: &api.SourceProgress{BytesRead: 10, BytesTotal: 20}},
		Subtasks:    []api.SubtaskMetrics{{Subtask: 0, State: api.TaskRunning, TaskManager: "tm-1", TaskFigures: api.TaskFigures{RecordsIn: 7}}},
	}}}
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.Method+" "+r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/v1/jobs/j1/metrics" {
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]string{"error": "not found: no job"})
			return
		}
		json.NewEncoder(w).Encode(want)
	}))
	defer srv.Close()
	c := client.New(srv.URL, srv.Client())
	got, err := c.JobMetrics(context.Background(), "j1")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("JobMetrics = %+v, %v; want %+v", got, err, want)
	}
	if _, err := c.JobMetrics(context.Background(), "nope"); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("JobMetrics of an unknown job: %v, want ErrNotFound", err)
	}
	if len(paths) != 2 || paths[0] != "GET /v1/jobs/j1/metrics" {
		t.Errorf("requests %q", paths)
	}
}
