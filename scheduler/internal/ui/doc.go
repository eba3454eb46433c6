// Package ui is the scheduler's web dashboard: a few static files (HTML, one
// vanilla JavaScript file, CSS) embedded in the binary and served next to
// the REST API, which the dashboard reads and writes like any other client.
//
// Handler wraps the REST API's handler. It serves the dashboard's page at
// "/" and its files under "/ui/", and hands every other request, "/v1/..."
// and "/healthz" among them, to the API unchanged, so the API keeps its
// JSON answers, 404s included. Nothing is generated on the server: the page
// polls the API every second and draws the jobs, the job graph (inline SVG,
// the vertices in columns by their longest path from a source) and the
// checkpoint chart in the browser. Nothing is loaded from anywhere
// else: a Content-Security-Policy of 'self' makes the browser refuse any
// other origin, so the dashboard works on a machine without internet.
//
// docs/dashboard.md describes the pages; tests/ui drives them in a real
// headless Chromium.
package ui
