package rest

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/floe-stream/floe/internal/auth"
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

// Protect returns next behind the check of the caller's role that the
// table's routes have (auth.go), with opts' users: for a handler served
// beside the API, such as the scheduler's /metrics, that answers 401 and
// 403 as the API does. method and pattern name it in a 403's message.
func Protect(opts Options, method, pattern string, role auth.Role, next http.Handler) http.Handler {
	h := &handler{users: opts.Users, log: opts.Logger}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	b := binding{Route: Route{Method: method, Pattern: pattern, Role: role}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h.authorize(r, b); err != nil {
			h.respond(w, r, 0, nil, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}
