package ui_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/internal/ui"
)

// api stands for the REST API: it answers every request it gets with a
// marker, so a test can tell who answered.
var api = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTeapot)
	io.WriteString(w, `{"api":true}`)
})

func TestHandlerServesTheDashboardBesideTheAPI(t *testing.T) {
	h := ui.Handler(api)
	tests := []struct {
		method, path string
		status       int
		contentType  string // prefix; empty for the API's answers
		body         string // a substring of the body
	}{
		{"GET", "/", 200, "text/html", `<script src="/ui/app.js">`},
		{"HEAD", "/", 200, "text/html", ""},
		{"GET", "/ui/app.js", 200, "text/javascript", "function route()"},
		{"GET", "/ui/app.css", 200, "text/css", "--accent"},
		{"GET", "/ui/favicon.svg", 200, "image/svg+xml", "<svg"},
		{"GET", "/ui/nope.js", 404, "text/plain", ""},
		{"GET", "/v1/jobs", http.StatusTeapot, "", `"api":true`},
		{"POST", "/v1/jobs", http.StatusTeapot, "", `"api":true`},
		{"GET", "/healthz", http.StatusTeapot, "", `"api":true`},
		{"GET", "/index.html", http.StatusTeapot, "", `"api":true`},
		{"POST", "/", http.StatusTeapot, "", `"api":true`},
		{"DELETE", "/ui/app.js", http.StatusTeapot, "", `"api":true`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d", rec.Code, tt.status)
			}
			if !strings.Contains(rec.Body.String(), tt.body) {
				t.Errorf("body lacks %q:\n%.300s", tt.body, rec.Body.String())
			}
			csp := rec.Header().Get("Content-Security-Policy")
			if tt.contentType == "" {
				if csp != "" {
					t.Errorf("the API's answer got the dashboard's Content-Security-Policy %q", csp)
				}
				return
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
				t.Errorf("Content-Type %q, want %s", ct, tt.contentType)
			}
			if !strings.Contains(csp, "default-src 'self'") {
				t.Errorf("Content-Security-Policy %q, want default-src 'self'", csp)
			}
		})
	}
}

// TestPageLinksOnlyEmbeddedFiles checks that every file index.html names
// is served from the binary: nothing comes from another origin.
func TestPageLinksOnlyEmbeddedFiles(t *testing.T) {
	h := ui.Handler(api)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	links := regexp.MustCompile(`(?:src|href)="([^"#]+)"`).FindAllStringSubmatch(rec.Body.String(), -1)
	if len(links) < 3 {
		t.Fatalf("index.html names %d files, want the script, the style sheet and the icon", len(links))
	}
	for _, l := range links {
		if !strings.HasPrefix(l[1], ui.Prefix) {
			t.Errorf("index.html names %q, outside %s", l[1], ui.Prefix)
			continue
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", l[1], nil))
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d", l[1], rec.Code)
		}
	}
}
