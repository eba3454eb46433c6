package scheduler

import (
	"net/http"
	"time"
)

// httpTimeouts bound how long a REST client may hold a connection, so slow
// or idle clients cannot pile up connections and goroutines.
type httpTimeouts struct {
	// header is how long a client may take to send a request's headers.
	header time.Duration
	// read is how long it may take to send the whole request, body
	// included: a job upload of --max-upload on a slow link.
	read time.Duration
	// write is how long the answer may take once the request is read. No
	// request waits for a savepoint: one answers 202 and is polled.
	write time.Duration
	// idle is how long a kept-alive connection may wait for its next
	// request.
	idle time.Duration
}

// restTimeouts are the REST server's timeouts.
var restTimeouts = httpTimeouts{
	header: 10 * time.Second,
	read:   2 * time.Minute,
	write:  2 * time.Minute,
	idle:   2 * time.Minute,
}

func newHTTPServer(h http.Handler, t httpTimeouts) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: t.header, ReadTimeout: t.read, WriteTimeout: t.write, IdleTimeout: t.idle}
}

// withMetrics serves the scheduler's Prometheus metrics at GET /metrics
// beside the API. They are not a route of the API's table: they are
// Prometheus's text, not JSON, and each scheduler of a group serves its own.
func withMetrics(api, metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	mux.Handle("/", api)
	return mux
}
