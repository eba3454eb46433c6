package client

import (
	"context"
	"encoding/json"
	"net/http"

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
// checkpoint storage), and returns it once it is complete, which can take a
// while for a job with much state: give ctx a deadline of minutes, not
// seconds (docs/savepoints.md). The error wraps api.ErrNotFound for an
// unknown id, api.ErrConflict for a job that is not running or takes no
// checkpoints, and api.ErrBadRequest for a bad dir.
func (c *Client) Savepoint(ctx context.Context, id, dir string) (api.Savepoint, error) {
	return c.savepoint(ctx, jobPath(id)+"/savepoints", savepointBody{Dir: dir})
}

// Stop takes a savepoint as Savepoint does and then stops the job, which
// ends FINISHED; it returns once the savepoint is complete. The errors are
// Savepoint's. To stop a job without a savepoint, Cancel it.
func (c *Client) Stop(ctx context.Context, id, dir string) (api.Savepoint, error) {
	return c.savepoint(ctx, jobPath(id)+"/stop", stopBody{Savepoint: true, Dir: dir})
}

// savepoint posts body to path and decodes the Savepoint of the answer.
func (c *Client) savepoint(ctx context.Context, path string, body any) (api.Savepoint, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return api.Savepoint{}, err
	}
	var sp api.Savepoint
	err = c.do(ctx, request{method: http.MethodPost, path: path, body: data,
		contentType: "application/json", want: http.StatusOK, out: &sp})
	return sp, err
}
