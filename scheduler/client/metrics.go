package client

import (
	"context"
	"net/http"

	"github.com/floe-stream/floe/scheduler/api"
)

var _ api.MetricsService = (*Client)(nil)

// JobMetrics returns a job's metrics by stage and subtask, as its task
// managers last reported them. The error wraps api.ErrNotFound for an
// unknown id.
func (c *Client) JobMetrics(ctx context.Context, id string) (api.JobMetrics, error) {
	var m api.JobMetrics
	err := c.do(ctx, request{method: http.MethodGet, path: jobPath(id) + "/metrics", want: http.StatusOK, out: &m})
	return m, err
}
