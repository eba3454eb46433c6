package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/floe-stream/floe/scheduler/api"
)

// errMethodNotAllowed marks a request whose path exists but not with its
// method. It is the one error of the API that a Service never returns, so it
// lives here rather than in api.StatusOf's table.
var errMethodNotAllowed = errors.New("method not allowed")

// statusError is an error this package detects itself: kind is the sentinel
// that decides the status code and msg the whole message the client sees.
type statusError struct {
	kind error
	msg  string
}

func (e *statusError) Error() string { return e.msg }
func (e *statusError) Unwrap() error { return e.kind }

// badRequest returns an error that maps to 400 with the formatted message.
func badRequest(format string, args ...any) error {
	return &statusError{api.ErrBadRequest, fmt.Sprintf(format, args...)}
}

// statusOf returns the HTTP status code for err: api.StatusOf's, or 405.
func statusOf(err error) int {
	if errors.Is(err, errMethodNotAllowed) {
		return http.StatusMethodNotAllowed
	}
	return api.StatusOf(err)
}

// retryAfter is the Retry-After header of a 503, in seconds.
const retryAfter = "1"

// errorBody is the JSON body of every error response.
type errorBody struct {
	Error string `json:"error"`
}

// located is an endpoint's body with the Location header of its answer:
// where to poll what a 202 started.
type located struct {
	body     any
	location string
}

// respond writes body with status, or err as an error body with its status
// code. It logs responses with a 5xx status.
func (h *handler) respond(w http.ResponseWriter, r *http.Request, status int, body any, err error) {
	if err != nil {
		status, body = statusOf(err), errorBody{err.Error()}
	}
	if status >= 500 {
		h.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
	}
	if l, ok := body.(located); ok {
		w.Header().Set("Location", l.location)
		body = l.body
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", authenticateHeader)
	}
	if status == http.StatusServiceUnavailable {
		// NB: a 503 of a Service is api.ErrUnavailable, which asks to try
		// again soon; say how soon, so clients need not guess.
		w.Header().Set("Retry-After", retryAfter)
	}
	w.WriteHeader(status)
	if status == http.StatusNoContent || r.Method == http.MethodHead {
		return // NB: net/http would drop a HEAD's body; say so here too.
	}
	if err := json.NewEncoder(w).Encode(body); err != nil {
		h.log.Debug("write response", "method", r.Method, "path", r.URL.Path, "err", err)
	}
}

// WriteError writes err as the API writes every error: a JSON body
// {"error": "..."} with the status code api.StatusOf assigns, and
// Retry-After on a 503. It is for handlers that stand in front of the
// API's, such as a follower's forwarding to the leader.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	(&handler{log: log}).respond(w, r, 0, nil, err)
}
