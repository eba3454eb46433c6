// Package rest serves the scheduler's job-management API over HTTP: it turns
// requests into calls of an api.Service and the results into JSON.
//
// The package owns no state. New builds an http.Handler from a Service and
// the route table (routes.go); each endpoint is a small function that reads
// its request and returns a status code and a value to encode, or an error.
// One function (respond.go) writes every response: errors become
// {"error": "..."} with the status code that api.StatusOf assigns, so the
// scheduler and this package share a single table from error to status.
//
// Submitting a job (submit.go) is a multipart/form-data upload: the job spec,
// one file part per Wasm module named after the module, and the --set,
// --parallelism, --checkpoint-interval, --from-savepoint and
// --allow-non-restored-state equivalents. The upload is
// streamed part by part under a size limit (Options.MaxUpload) rather than
// spooled to disk.
//
// Rescaling a job (rescale.go), PATCH /v1/jobs/{id}, takes a JSON body with
// the new parallelism and answers 202 with the job's status: the Service
// only starts the rescale, and the job's history reports how it ends.
//
// Taking a savepoint (savepoint.go), POST /v1/jobs/{id}/savepoints, and
// stopping a job with one, POST /v1/jobs/{id}/stop, answer 202 at once with
// the savepoint's trigger and its URL in Location; GET
// /v1/jobs/{id}/savepoints/{trigger}, open to viewers, polls it until it
// is COMPLETED or FAILED, which can take minutes for a job with much
// state. A stop without "savepoint": true cancels the job, as DELETE
// /v1/jobs/{id} does.
//
// Reading queryable state (state.go) takes a key as one percent-decoded path
// segment, GET /v1/jobs/{id}/state/{name}/{key}, or several in a JSON body,
// POST /v1/jobs/{id}/state/{name}:batchGet. ServeMux needs help with both
// patterns, a custom method after a wildcard and a segment that is exactly
// %2F; mux.go gives it. A 503 (api.ErrUnavailable: the state is moving)
// carries Retry-After.
//
// A job's metrics (metrics.go), GET /v1/jobs/{id}/metrics, are served when
// the Service is also an api.MetricsService. Options.Observe, when set,
// hears of every request with the table route it matched (requestmetrics.go):
// the scheduler's Prometheus metrics of its API count by route, never by
// raw path. The scheduler serves those metrics beside the API, at
// /metrics, outside this package's table, behind the same role check
// (Protect).
//
// Every route of the table declares the least role a user needs to call it
// (auth.Viewer, auth.Operator, auth.Admin, or auth.Anyone for /healthz).
// With Options.Users, a request must carry "Authorization: Bearer TOKEN"
// for a user whose role allows the route (auth.go): 401 with
// WWW-Authenticate without a token or with an unknown one, 403 for a role
// that may not. A read of queryable state also lets a viewer in when
// Options.ViewerState says the job opens the state to viewers.
//
// docs/rest.md describes the API for users and docs/openapi.yaml formally; a
// test keeps the route table and the OpenAPI paths in agreement.
package rest
