package rest

import (
	"context"
	"net/http"
	"net/url"

	"github.com/floe-stream/floe/scheduler/api"
)

// The shapes of the bodies of POST /v1/jobs/{id}/savepoints and POST
// /v1/jobs/{id}/stop, for their 400 errors.
const (
	savepointShape = `{"dir": "s3://bucket/savepoints"}`
	stopShape      = `{"savepoint": true, "dir": "s3://bucket/savepoints"}`
)

// savepointRequest is the body of POST /v1/jobs/{id}/savepoints. An empty
// Dir asks for the job's checkpoint storage.
//
// NB: omitempty, here and in stopRequest, says that the fields are
// optional, for the test that compares them with docs/openapi.yaml;
// decoding ignores it.
type savepointRequest struct {
	Dir string `json:"dir,omitempty"`
}

// stopRequest is the body of POST /v1/jobs/{id}/stop: with Savepoint, stop
// the job after a savepoint into Dir; without, cancel it.
type stopRequest struct {
	Savepoint bool   `json:"savepoint,omitempty"`
	Dir       string `json:"dir,omitempty"`
}

// savepoint starts a savepoint of a job and answers 202 with its trigger
// at once, and the trigger's URL in Location. The body is optional.
func (h *handler) savepoint(r *http.Request) (int, any, error) {
	var req savepointRequest
	if err := decodeOptionalBody(r.Body, &req, savepointShape); err != nil {
		return 0, nil, err
	}
	return h.triggerSavepoint(r, req.Dir, h.svc.Savepoint)
}

// stop stops a job: with "savepoint": true after a savepoint, answering
// 202 with its trigger as POST /v1/jobs/{id}/savepoints does (the job
// stops once the savepoint is complete); otherwise it cancels the job as
// DELETE /v1/jobs/{id} does, answering 200 with the job's status. The body
// is optional; without one, the job is cancelled.
func (h *handler) stop(r *http.Request) (int, any, error) {
	var req stopRequest
	if err := decodeOptionalBody(r.Body, &req, stopShape); err != nil {
		return 0, nil, err
	}
	switch {
	case req.Savepoint:
		return h.triggerSavepoint(r, req.Dir, h.svc.Stop)
	case req.Dir != "":
		return 0, nil, badRequest(`"dir" needs "savepoint": true in the body %s; without a savepoint, stop cancels the job`, stopShape)
	}
	return h.cancel(r)
}

// savepointStatus answers 200 with a savepoint trigger of a job.
func (h *handler) savepointStatus(r *http.Request) (int, any, error) {
	t, err := h.svc.SavepointStatus(r.Context(), r.PathValue("id"), r.PathValue("trigger"))
	return http.StatusOK, t, err
}

// triggerFunc is the Service's Savepoint or Stop.
type triggerFunc func(ctx context.Context, id, dir string) (api.SavepointTrigger, error)

// triggerSavepoint calls trigger for the job of r with dir and answers 202
// with the trigger, located at GET /v1/jobs/{id}/savepoints/{trigger}.
func (h *handler) triggerSavepoint(r *http.Request, dir string, trigger triggerFunc) (int, any, error) {
	id := r.PathValue("id")
	t, err := trigger(r.Context(), id, dir)
	if err != nil {
		return 0, nil, err
	}
	loc := "/v1/jobs/" + url.PathEscape(id) + "/savepoints/" + url.PathEscape(t.Trigger)
	return http.StatusAccepted, located{body: t, location: loc}, nil
}
