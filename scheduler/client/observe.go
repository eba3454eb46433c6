package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/floe-stream/floe/scheduler/api"
)

// Exceptions lists a job's failures, newest first, and how many older
// ones the scheduler no longer keeps. The error wraps api.ErrNotFound for
// an unknown id.
func (c *Client) Exceptions(ctx context.Context, id string) (api.Exceptions, error) {
	var out api.Exceptions
	err := c.do(ctx, request{method: http.MethodGet, path: jobPath(id) + "/exceptions", want: http.StatusOK, out: &out})
	if err == nil && out.Exceptions == nil {
		out.Exceptions = []api.Exception{}
	}
	return out, err
}

// Logs returns the recent log lines of a job's subtasks that q selects,
// oldest first; ask again with q.Since set to the answer's Next for the
// lines logged since. The error wraps api.ErrNotFound for an unknown job
// or vertex and api.ErrBadRequest for a bad query.
func (c *Client) Logs(ctx context.Context, id string, q api.LogQuery) (api.Logs, error) {
	v := url.Values{}
	if q.Since != 0 {
		v.Set("since", strconv.FormatInt(q.Since, 10))
	}
	if q.Vertex != "" {
		v.Set("vertex", q.Vertex)
		if q.Subtask >= 0 {
			v.Set("subtask", strconv.Itoa(q.Subtask))
		}
	}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	path := jobPath(id) + "/logs"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	var out api.Logs
	err := c.do(ctx, request{method: http.MethodGet, path: path, want: http.StatusOK, out: &out})
	if err == nil && out.Lines == nil {
		out.Lines = []api.LogLine{}
	}
	return out, err
}
