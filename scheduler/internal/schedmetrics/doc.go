// Package schedmetrics exports what the scheduler knows about its jobs, its
// cluster and its REST API as Prometheus metrics.
//
// It follows host/metrics: the scheduler keeps plain state (the job
// lifecycle, fed by heartbeats), and nothing is registered or updated per
// job. A Collector reads a Snapshot of that state only when Prometheus
// scrapes, through a function the scheduler gives it, and turns it into
// const metrics with their labels. The one thing counted as it happens is
// the REST API's requests (ObserveRequest), by route pattern and status
// code, never by raw path.
//
// Labels are bounded: job (the id), job_name, vertex (the stage's name),
// state (one of the seven job states), route (a pattern of the API's route
// table, or "unmatched") and code. Never a key, a value or a path.
//
// docs/metrics.md lists every metric under "Scheduler". Only this package,
// host/metrics and the floe command import client_golang
// (internal/layers enforces it).
package schedmetrics
