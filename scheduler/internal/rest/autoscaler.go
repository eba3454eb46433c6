package rest

import (
	"fmt"
	"net/http"

	"github.com/floe-stream/floe/scheduler/api"
)

// autoscalerShape is what the body of PUT /v1/jobs/{id}/autoscaler looks
// like, for its 400 errors.
const autoscalerShape = `{"enabled": true, "minParallelism": N, "maxParallelism": N, "targetUtilization": 0.7, "stabilization": "1m", "cooldown": "30s", ...}`

// autoscalerService returns the Service's autoscaler, or a 404 error when
// it has none.
func (h *handler) autoscalerService() (api.AutoscalerService, error) {
	as, ok := h.svc.(api.AutoscalerService)
	if !ok {
		return nil, fmt.Errorf("%w: this service has no autoscaler", api.ErrNotFound)
	}
	return as, nil
}

// autoscaler serves GET /v1/jobs/{id}/autoscaler: the job's autoscaling
// policy and its decisions.
func (h *handler) autoscaler(r *http.Request) (int, any, error) {
	as, err := h.autoscalerService()
	if err != nil {
		return 0, nil, err
	}
	st, err := as.Autoscaler(r.Context(), r.PathValue("id"))
	return http.StatusOK, st, err
}

// setAutoscaler serves PUT /v1/jobs/{id}/autoscaler: it replaces the job's
// policy with the body's (absent fields take their defaults) and answers
// with the autoscaler's status.
func (h *handler) setAutoscaler(r *http.Request) (int, any, error) {
	as, err := h.autoscalerService()
	if err != nil {
		return 0, nil, err
	}
	var c api.AutoscalerConfig
	if err := decodeBody(r.Body, &c, autoscalerShape); err != nil {
		return 0, nil, err
	}
	st, err := as.SetAutoscaler(r.Context(), r.PathValue("id"), c)
	return http.StatusOK, st, err
}
