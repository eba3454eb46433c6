package scheduler

import (
	"strings"
	"testing"
)

// TestEveryMemberServesTheDashboard asks the leader and a follower of a
// group for the dashboard and for the API beside it: each serves the page
// itself (a read), and the paths the dashboard does not own stay the API's.
func TestEveryMemberServesTheDashboard(t *testing.T) {
	g := startGroup(t, 3)
	tests := []struct {
		method, path string
		status       int
		contentType  string
		body         string
	}{
		{"GET", "/", 200, "text/html", `<script src="/ui/app.js">`},
		{"GET", "/ui/app.js", 200, "text/javascript", "function route()"},
		{"GET", "/v1/jobs", 200, "application/json", `{"jobs":[]}`},
		{"GET", "/nope", 404, "application/json", `{"error":"no such endpoint: GET /nope"}`},
		{"GET", "/index.html", 404, "application/json", `{"error":"no such endpoint: GET /index.html"}`},
	}
	for name, s := range map[string]*Server{"leader": g.leader(), "follower": g.follower()} {
		for _, tt := range tests {
			resp, body := g.do(t, s, tt.method, tt.path, "", nil)
			if resp.StatusCode != tt.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tt.contentType) || !strings.Contains(body, tt.body) {
				t.Errorf("%s: %s %s: %s %s %.200q; want %d %s with %q", name, tt.method, tt.path, resp.Status, resp.Header.Get("Content-Type"), body, tt.status, tt.contentType, tt.body)
			}
		}
	}
}
