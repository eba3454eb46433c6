package ui

import (
	"embed"
	"io/fs"
	"net/http"
)

// static holds the dashboard's files: index.html and what it links to.
//
//go:embed static
var static embed.FS

// Prefix is the path under which the dashboard's files are served.
const Prefix = "/ui/"

// csp lets the page load scripts, styles and images from its own origin
// only, and talk only to its own origin's API.
const csp = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

// Handler returns a handler that serves the dashboard at "/" and Prefix and
// passes every other request to api. It is safe for concurrent use if api
// is.
func Handler(api http.Handler) http.Handler {
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // NB: the embedded directory is there by construction.
	}
	mux := http.NewServeMux()
	mux.Handle("/", api)
	mux.Handle("GET /{$}", secured(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, files, "index.html")
	})))
	mux.Handle("GET "+Prefix, secured(http.StripPrefix(Prefix, http.FileServerFS(files))))
	return mux
}

// secured sets the dashboard's security headers before next answers.
func secured(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}
