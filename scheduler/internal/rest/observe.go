package rest

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/floe-stream/floe/scheduler/api"
)

// exceptions lists a job's failures, newest first.
func (h *handler) exceptions(r *http.Request) (int, any, error) {
	x, err := h.svc.Exceptions(r.Context(), r.PathValue("id"))
	if x.Exceptions == nil {
		x.Exceptions = []api.Exception{}
	}
	return http.StatusOK, x, err
}

// logs returns a job's recent guest log lines, oldest first:
// ?since=SEQ|RFC3339 for those after it, ?vertex=NAME|INDEX and
// ?subtask=N to pick subtasks, ?limit=N.
func (h *handler) logs(r *http.Request) (int, any, error) {
	q, err := logQuery(r)
	if err != nil {
		return 0, nil, err
	}
	logs, err := h.svc.Logs(r.Context(), r.PathValue("id"), q)
	if logs.Lines == nil {
		logs.Lines = []api.LogLine{}
	}
	return http.StatusOK, logs, err
}

// logQuery reads the parameters of GET /v1/jobs/{id}/logs.
func logQuery(r *http.Request) (api.LogQuery, error) {
	v := r.URL.Query()
	q := api.LogQuery{Vertex: v.Get("vertex"), Subtask: -1}
	var err error
	if q.Since, err = api.ParseSince(v.Get("since")); err != nil {
		return q, err
	}
	if q.Subtask, err = intParam(v.Get("subtask"), -1); err != nil {
		return q, err
	}
	if q.Limit, err = intParam(v.Get("limit"), 0); err != nil {
		return q, err
	}
	return api.CheckLogQuery(q)
}

// intParam reads an integer query parameter, def when absent.
func intParam(s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%w: %q is not an integer", api.ErrBadRequest, s)
	}
	return n, nil
}
