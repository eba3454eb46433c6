package client

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/floe-stream/floe/scheduler/api"
)

var _ api.AutoscalerService = (*Client)(nil)

// Autoscaler returns a job's autoscaling policy and its decisions, newest
// first. The error wraps api.ErrNotFound for an unknown id.
func (c *Client) Autoscaler(ctx context.Context, id string) (api.AutoscalerStatus, error) {
	var st api.AutoscalerStatus
	err := c.do(ctx, request{method: http.MethodGet, path: jobPath(id) + "/autoscaler", want: http.StatusOK, out: &st})
	return st, err
}

// SetAutoscaler replaces a job's autoscaling policy; its zero fields take
// their defaults. The error wraps api.ErrNotFound, api.ErrBadRequest or
// api.ErrConflict (see api.AutoscalerService).
func (c *Client) SetAutoscaler(ctx context.Context, id string, cfg api.AutoscalerConfig) (api.AutoscalerStatus, error) {
	body, err := json.Marshal(cfg)
	if err != nil {
		return api.AutoscalerStatus{}, err
	}
	var st api.AutoscalerStatus
	err = c.do(ctx, request{method: http.MethodPut, path: jobPath(id) + "/autoscaler", body: body,
		contentType: "application/json", want: http.StatusOK, out: &st})
	return st, err
}
