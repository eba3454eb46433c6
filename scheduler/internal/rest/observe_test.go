package rest_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// observation is one call of Options.Observe.
type observation struct {
	route string
	code  int
}

func TestObserveNamesTheRouteNotThePath(t *testing.T) {
	var mu sync.Mutex
	var got []observation
	e := newEnv(t, rest.Options{Observe: func(route string, code int, d time.Duration) {
		if d < 0 {
			t.Errorf("%s %d took %s", route, code, d)
		}
		mu.Lock()
		got = append(got, observation{route, code})
		mu.Unlock()
	}})
	requests := []struct {
		method, path, body string
		want               observation
	}{
		{"GET", "/v1/jobs", "", observation{"GET /v1/jobs", 200}},
		{"GET", "/v1/jobs/nosuchjob", "", observation{"GET /v1/jobs/{id}", 404}},
		{"GET", "/v1/jobs/other", "", observation{"GET /v1/jobs/{id}", 404}},
		{"POST", "/v1/jobs", "not a form", observation{"POST /v1/jobs", 400}},
		{"PUT", "/v1/jobs/x", "", observation{"/v1/jobs/{id}", 405}},
		{"GET", "/v2/whatever", "", observation{rest.UnmatchedRoute, 404}},
		{"GET", "/v1/jobs/j/state/counts/a%2Fb/c", "", observation{"GET /v1/jobs/{id}/state/{name}/{key}", 404}},
		{"GET", "/healthz", "", observation{"GET /healthz", 200}},
	}
	var want []observation
	for _, r := range requests {
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, httptest.NewRequest(r.method, r.path, strings.NewReader(r.body)))
		if rec.Code != r.want.code {
			t.Errorf("%s %s: status %d, want %d", r.method, r.path, rec.Code, r.want.code)
		}
		want = append(want, r.want)
	}
	if !slices.Equal(got, want) {
		t.Errorf("observed\n%v\nwant\n%v", got, want)
	}
}

func TestNoObserverServesTheSame(t *testing.T) {
	e := newEnv(t, rest.Options{})
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/jobs/nosuchjob", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("GET an unknown job: %d, want 404", rec.Code)
	}
}
