package rest

import (
	"context"
	"net/http"
	"time"
)

// UnmatchedRoute is the route Options.Observe is given for a request that
// matches no pattern of the table.
const UnmatchedRoute = "unmatched"

// routeKey is the context key of the route a request matched, which the
// handler of the route writes for observed to read.
type routeKey struct{}

// observed calls observe after every request next serves, with the route
// it matched, its status code and the time it took.
func observed(next http.Handler, observe func(route string, code int, d time.Duration)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		route := UnmatchedRoute
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), routeKey{}, &route)))
		observe(route, rec.code, time.Since(start))
	})
}

// named returns next noting that its requests matched route.
func named(route string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := r.Context().Value(routeKey{}).(*string); ok {
			*p = route
		}
		next.ServeHTTP(w, r)
	})
}

// statusRecorder notes the status code written through it.
type statusRecorder struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wrote {
		s.code, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	s.wrote = true
	return s.ResponseWriter.Write(b)
}

// Flush lets a handler that streams flush through the recorder.
func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
