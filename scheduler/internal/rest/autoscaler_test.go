package rest_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// TestAutoscaler reads a job's policy, replaces it, reads it back, and
// checks the answers to bodies and jobs that are refused.
func TestAutoscaler(t *testing.T) {
	e := withCheckpoints(t, rest.Options{})
	var st api.AutoscalerStatus
	decode(t, e.do("GET", "/v1/jobs/job-1/autoscaler", nil, ""), http.StatusOK, &st)
	if st.ID != "job-1" || st.Config.Enabled || st.Config.TargetUtilization != 0.7 || st.Config.Stabilization != "1m0s" {
		t.Errorf("before: %+v", st)
	}
	body := `{"enabled": true, "maxParallelism": 8, "cooldown": "1m"}`
	decode(t, e.do("PUT", "/v1/jobs/job-1/autoscaler", strings.NewReader(body), "application/json"), http.StatusOK, &st)
	decode(t, e.do("GET", "/v1/jobs/job-1/autoscaler", nil, ""), http.StatusOK, &st)
	if want := (api.AutoscalerConfig{Enabled: true, MaxParallelism: 8, TargetUtilization: 0.7, Stabilization: "1m0s",
		Cooldown: "1m0s", Interval: "10s"}); !reflect.DeepEqual(st.Config, want) {
		t.Errorf("after: %+v, want %+v", st.Config, want)
	}
	body = `{"enabled": true, "schedule": [{"from": "22:00", "to": "06:00", "maxParallelism": 2}]}`
	decode(t, e.do("PUT", "/v1/jobs/job-1/autoscaler", strings.NewReader(body), "application/json"), http.StatusOK, &st)
	if want := []api.AutoscalerWindow{{From: "22:00", To: "06:00", MaxParallelism: 2}}; !reflect.DeepEqual(st.Config.Schedule, want) {
		t.Errorf("schedule %+v, want %+v", st.Config.Schedule, want)
	}
	tests := []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"unknown field", "/v1/jobs/job-1/autoscaler", `{"enable": true}`, 400, `unknown field "enable"`},
		{"out of range", "/v1/jobs/job-1/autoscaler", `{"targetUtilization": 2}`, 400, "targetUtilization: must be a number above 0 and at most 1"},
		{"bad duration", "/v1/jobs/job-1/autoscaler", `{"cooldown": "soon"}`, 400, `cooldown: must be a duration`},
		{"bad window", "/v1/jobs/job-1/autoscaler", `{"schedule": [{"from": "25:00", "to": "06:00", "minParallelism": 1}]}`, 400,
			`schedule[0].from: must be a time of day UTC`},
		{"unknown job", "/v1/jobs/job-9/autoscaler", `{"enabled": true}`, 404, "job-9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := e.do("PUT", tt.path, strings.NewReader(tt.body), "application/json")
			if msg := errorOf(t, rec, tt.status); !strings.Contains(msg, tt.want) {
				t.Errorf("message %q, want one containing %q", msg, tt.want)
			}
		})
	}
}
