package rest

import (
	"fmt"
	"net/http"

	"github.com/floe-stream/floe/scheduler/api"
)

// jobMetrics serves GET /v1/jobs/{id}/metrics: a job's figures by stage
// and subtask, when the service reports them.
func (h *handler) jobMetrics(r *http.Request) (int, any, error) {
	ms, ok := h.svc.(api.MetricsService)
	if !ok {
		return 0, nil, fmt.Errorf("%w: this service reports no job metrics", api.ErrNotFound)
	}
	m, err := ms.JobMetrics(r.Context(), r.PathValue("id"))
	return http.StatusOK, m, err
}
