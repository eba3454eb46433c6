package client

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/floe-stream/floe/scheduler/api"
)

// Submit uploads a job. The modules are sent under their names, which must
// not be "spec", "set", "parallelism", "checkpointInterval",
// "fromSavepoint" or "allowNonRestoredState": those form fields carry the
// rest of the submission, all but the first two only when they are not
// zero. Errors of the scheduler wrap api.ErrBadRequest or
// api.ErrTooLarge as api.Service documents.
func (c *Client) Submit(ctx context.Context, s api.Submission) (string, error) {
	body, contentType, err := encodeSubmission(s)
	if err != nil {
		return "", err
	}
	var out struct {
		ID string `json:"id"`
	}
	err = c.do(ctx, request{method: http.MethodPost, path: "/v1/jobs", body: body,
		contentType: contentType, want: http.StatusCreated, out: &out})
	return out.ID, err
}

// Jobs lists every job, newest first, without vertices and history.
func (c *Client) Jobs(ctx context.Context) ([]api.JobStatus, error) {
	var out struct {
		Jobs []api.JobStatus `json:"jobs"`
	}
	err := c.do(ctx, request{method: http.MethodGet, path: "/v1/jobs", want: http.StatusOK, out: &out})
	return out.Jobs, err
}

// Job returns one job in full, or an error wrapping api.ErrNotFound.
func (c *Client) Job(ctx context.Context, id string) (api.JobStatus, error) {
	var job api.JobStatus
	err := c.do(ctx, request{method: http.MethodGet, path: jobPath(id), want: http.StatusOK, out: &job})
	return job, err
}

// Cancel cancels a job: the error wraps api.ErrNotFound for an unknown id and
// api.ErrConflict for a job that has already ended.
func (c *Client) Cancel(ctx context.Context, id string) error {
	return c.do(ctx, request{method: http.MethodDelete, path: jobPath(id), want: http.StatusOK})
}

// Checkpoints lists a job's checkpoints, newest first; the list is empty,
// not nil, for a job that takes none. The error wraps api.ErrNotFound for an
// unknown id.
func (c *Client) Checkpoints(ctx context.Context, id string) ([]api.CheckpointStatus, error) {
	var out struct {
		Checkpoints []api.CheckpointStatus `json:"checkpoints"`
	}
	err := c.do(ctx, request{method: http.MethodGet, path: jobPath(id) + "/checkpoints", want: http.StatusOK, out: &out})
	if err == nil && out.Checkpoints == nil {
		out.Checkpoints = []api.CheckpointStatus{}
	}
	return out.Checkpoints, err
}

// Rescale asks the scheduler to change the parallelism of a running job
// that takes checkpoints: r.Parallelism for the whole job, r.Operators for
// single sources, operators and sinks by uid. It returns once the scheduler
// has triggered the checkpoint that the rescale goes through; the job's
// history reports the rest, ending in a RUNNING event whose message starts
// "rescaled to" and gives the downtime (docs/rescaling.md). The error wraps
// api.ErrNotFound for an unknown id, api.ErrConflict for a job that is not
// running, takes no checkpoints or is being rescaled already, and
// api.ErrBadRequest for a parallelism out of range or an unknown uid.
func (c *Client) Rescale(ctx context.Context, id string, r api.RescaleRequest) error {
	body, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return c.do(ctx, request{method: http.MethodPatch, path: jobPath(id), body: body,
		contentType: "application/json", want: http.StatusAccepted})
}

// TaskManagers lists the live task managers.
func (c *Client) TaskManagers(ctx context.Context) ([]api.TaskManagerStatus, error) {
	var out struct {
		TaskManagers []api.TaskManagerStatus `json:"taskManagers"`
	}
	err := c.do(ctx, request{method: http.MethodGet, path: "/v1/taskmanagers", want: http.StatusOK, out: &out})
	return out.TaskManagers, err
}

func jobPath(id string) string {
	return "/v1/jobs/" + escapeSegment(id)
}
