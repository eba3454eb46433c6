package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"

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

// savepoint takes a savepoint of a job and answers 200 with it once it is
// complete. The body is optional.
func (h *handler) savepoint(r *http.Request) (int, any, error) {
	var req savepointRequest
	if err := decodeOptionalBody(r.Body, &req, savepointShape); err != nil {
		return 0, nil, err
	}
	return h.awaitSavepoint(r, req.Dir, h.svc.Savepoint)
}

// stop stops a job: with "savepoint": true after a savepoint, answering
// 200 with the savepoint; otherwise it cancels the job as DELETE
// /v1/jobs/{id} does, answering 200 with the job's status. The body is
// optional; without one, the job is cancelled.
func (h *handler) stop(r *http.Request) (int, any, error) {
	var req stopRequest
	if err := decodeOptionalBody(r.Body, &req, stopShape); err != nil {
		return 0, nil, err
	}
	switch {
	case req.Savepoint:
		return h.awaitSavepoint(r, req.Dir, h.svc.Stop)
	case req.Dir != "":
		return 0, nil, badRequest(`"dir" needs "savepoint": true in the body %s; without a savepoint, stop cancels the job`, stopShape)
	}
	return h.cancel(r)
}

// takeFunc is the Service's Savepoint or Stop.
type takeFunc func(ctx context.Context, id, dir string) (api.Savepoint, error)

// awaitSavepoint calls take for the job of r with dir, waiting at most
// h.savepointTimeout, and answers 200 with the savepoint.
func (h *handler) awaitSavepoint(r *http.Request, dir string, take takeFunc) (int, any, error) {
	ctx, cancel := context.WithTimeout(r.Context(), h.savepointTimeout)
	defer cancel()
	id := r.PathValue("id")
	sp, err := take(ctx, id, dir)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && r.Context().Err() == nil {
		// NB: the job goes on, and so may the savepoint's checkpoint; only
		// this request gives up on it.
		return 0, nil, fmt.Errorf("savepoint of job %s not complete after %v: %w", id, h.savepointTimeout, err)
	}
	return http.StatusOK, sp, err
}
