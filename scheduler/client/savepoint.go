package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// savepointBody is the body of POST /v1/jobs/{id}/savepoints.
type savepointBody struct {
	Dir string `json:"dir,omitempty"`
}

// stopBody is the body of POST /v1/jobs/{id}/stop.
type stopBody struct {
	Savepoint bool   `json:"savepoint"`
	Dir       string `json:"dir,omitempty"`
}

// Savepoint asks the scheduler for a savepoint of a running job that takes
// checkpoints, into dir (a file:// or s3:// URL; empty for the job's
// checkpoint storage), and returns its trigger, IN_PROGRESS, at once:
// SavepointStatus or WaitSavepoint tell when it is complete. The error
// wraps api.ErrNotFound for an unknown id, api.ErrConflict for a job that
// is not running or takes no checkpoints, and api.ErrBadRequest for a bad
// dir.
func (c *Client) Savepoint(ctx context.Context, id, dir string) (api.SavepointTrigger, error) {
	return c.savepoint(ctx, jobPath(id)+"/savepoints", savepointBody{Dir: dir})
}

// Stop starts a savepoint as Savepoint does; once it is complete the job
// stops and ends FINISHED. The errors are Savepoint's. To stop a job
// without a savepoint, Cancel it.
func (c *Client) Stop(ctx context.Context, id, dir string) (api.SavepointTrigger, error) {
	return c.savepoint(ctx, jobPath(id)+"/stop", stopBody{Savepoint: true, Dir: dir})
}

// SavepointStatus returns a savepoint trigger of a job. The error wraps
// api.ErrNotFound for an unknown job or trigger (a job keeps its last 100).
func (c *Client) SavepointStatus(ctx context.Context, id, trigger string) (api.SavepointTrigger, error) {
	var t api.SavepointTrigger
	err := c.do(ctx, request{method: http.MethodGet, path: jobPath(id) + "/savepoints/" + url.PathEscape(trigger), want: http.StatusOK, out: &t})
	return t, err
}

// WaitSavepoint polls a savepoint trigger every interval until it ends or
// ctx is done. It returns the trigger, and an error wrapping
// api.ErrConflict when it FAILED.
func (c *Client) WaitSavepoint(ctx context.Context, id, trigger string, interval time.Duration) (api.SavepointTrigger, error) {
	for {
		t, err := c.SavepointStatus(ctx, id, trigger)
		switch {
		case err != nil:
			return t, err
		case t.Status == api.SavepointFailed:
			return t, fmt.Errorf("%w: savepoint %s of job %s failed: %s", api.ErrConflict, trigger, id, t.Failure)
		case t.Status != api.SavepointInProgress:
			return t, nil
		}
		timer := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return t, fmt.Errorf("savepoint %s of job %s still in progress: %w", trigger, id, ctx.Err())
		case <-timer.C:
		}
	}
}

// savepoint posts body to path and decodes the trigger of the answer.
func (c *Client) savepoint(ctx context.Context, path string, body any) (api.SavepointTrigger, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return api.SavepointTrigger{}, err
	}
	var t api.SavepointTrigger
	err = c.do(ctx, request{method: http.MethodPost, path: path, body: data,
		contentType: "application/json", want: http.StatusAccepted, out: &t})
	return t, err
}
