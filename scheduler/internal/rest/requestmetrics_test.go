package rest_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/auth"
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

func TestProtectChecksTheRoleAsTheAPIDoes(t *testing.T) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("metrics\n")) })
	tests := []struct {
		name   string
		opts   rest.Options
		header string
		code   int
	}{
		{"no users: everyone", rest.Options{}, "", http.StatusOK},
		{"no token", rest.Options{Users: users(t)}, "", http.StatusUnauthorized},
		{"unknown token", rest.Options{Users: users(t)}, "Bearer floe_nobody", http.StatusUnauthorized},
		{"viewer", rest.Options{Users: users(t)}, "Bearer " + viewerToken, http.StatusOK},
		{"admin", rest.Options{Users: users(t)}, "Bearer " + adminToken, http.StatusOK},
	}
	for _, tt := range tests {
		h := rest.Protect(tt.opts, http.MethodGet, "/metrics", auth.Viewer, inner)
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if tt.header != "" {
			req.Header.Set("Authorization", tt.header)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.code {
			t.Errorf("%s: %d %s, want %d", tt.name, rec.Code, rec.Body, tt.code)
		}
		if tt.code == http.StatusOK && rec.Body.String() != "metrics\n" {
			t.Errorf("%s: body %q, want the protected handler's", tt.name, rec.Body)
		}
	}
	// A role below the one asked for is refused with 403.
	h := rest.Protect(rest.Options{Users: users(t)}, http.MethodGet, "/metrics", auth.Admin, inner)
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+viewerToken)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("a viewer on an admin's handler: %d, want 403", rec.Code)
	}
}
