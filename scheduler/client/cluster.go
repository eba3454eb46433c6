package client

import (
	"context"
	"net/http"

	"github.com/floe-stream/floe/scheduler/api"
)

// Cluster returns the scheduler group as the scheduler that answers sees
// it: its members, the leader, the term and each member's applied index.
func (c *Client) Cluster(ctx context.Context) (api.ClusterStatus, error) {
	var out api.ClusterStatus
	err := c.do(ctx, request{method: http.MethodGet, path: "/v1/cluster", want: http.StatusOK, out: &out})
	return out, err
}
