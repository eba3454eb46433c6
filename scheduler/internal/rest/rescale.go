package rest

import (
	"maps"
	"net/http"
	"slices"

	"github.com/floe-stream/floe/scheduler/api"
)

// rescaleShape is what the body of PATCH /v1/jobs/{id} looks like, for its
// 400 errors.
const rescaleShape = `{"parallelism": N, "operators": {"uid": N}}`

// rescale asks the Service to rescale a job and answers 202 with the job's
// status after the request: the rescale goes on after the response, and
// the job's history reports how it ends (docs/rescaling.md).
func (h *handler) rescale(r *http.Request) (int, any, error) {
	req, err := readRescale(r)
	if err != nil {
		return 0, nil, err
	}
	if err := h.svc.Rescale(r.Context(), r.PathValue("id"), req); err != nil {
		return 0, nil, err
	}
	_, job, err := h.job(r)
	return http.StatusAccepted, job, err
}

// readRescale decodes and checks the body of a rescale. It refuses what no
// job could accept; the Service checks the rest against the job.
func readRescale(r *http.Request) (api.RescaleRequest, error) {
	var req api.RescaleRequest
	if err := decodeBody(r.Body, &req, rescaleShape); err != nil {
		return api.RescaleRequest{}, err
	}
	switch {
	case req.Parallelism == 0 && len(req.Operators) == 0:
		return api.RescaleRequest{}, badRequest(`want "parallelism" or "operators" (or both) in the body %s`, rescaleShape)
	case req.Parallelism < 0:
		return api.RescaleRequest{}, badRequest("parallelism %d: want an integer >= 1", req.Parallelism)
	}
	for _, uid := range slices.Sorted(maps.Keys(req.Operators)) {
		if n := req.Operators[uid]; n < 1 {
			return api.RescaleRequest{}, badRequest("operators[%q] %d: want an integer >= 1", uid, n)
		}
	}
	return req, nil
}
