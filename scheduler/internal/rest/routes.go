package rest

import (
	"net/http"

	"github.com/floe-stream/floe/internal/auth"
)

// Route is one endpoint of the API: an HTTP method and a path pattern in
// net/http's syntax, e.g. {GET /v1/jobs/{id}}. A pattern may end in a custom
// method after its last wildcard, as in {POST
// /v1/jobs/{id}/state/{name}:batchGet} (see mux.go).
//
// Role is the least role a user needs to call it (auth.Anyone for none);
// every route declares one.
type Route struct {
	Method  string
	Pattern string
	Role    auth.Role
}

// endpoint serves one route: it returns the status code and the value to
// encode as JSON, or an error for respond to map.
type endpoint func(h *handler, r *http.Request) (int, any, error)

// binding ties a route to its endpoint.
type binding struct {
	Route
	serve endpoint
	// openable marks a read of queryable state, which a viewer may call
	// as well when the job opens the state to viewers (Options.ViewerState).
	openable bool
}

// table is the API. Routes exports it; New serves it.
var table = []binding{
	{Route{http.MethodPost, "/v1/jobs", auth.Operator}, (*handler).submit, false},
	{Route{http.MethodGet, "/v1/jobs", auth.Viewer}, (*handler).jobs, false},
	{Route{http.MethodGet, "/v1/jobs/{id}", auth.Viewer}, (*handler).job, false},
	{Route{http.MethodDelete, "/v1/jobs/{id}", auth.Operator}, (*handler).cancel, false},
	{Route{http.MethodPatch, "/v1/jobs/{id}", auth.Operator}, (*handler).rescale, false},
	{Route{http.MethodGet, "/v1/jobs/{id}/checkpoints", auth.Viewer}, (*handler).checkpoints, false},
	{Route{http.MethodGet, "/v1/jobs/{id}/metrics", auth.Viewer}, (*handler).jobMetrics, false},
	{Route{http.MethodGet, "/v1/jobs/{id}/autoscaler", auth.Viewer}, (*handler).autoscaler, false},
	{Route{http.MethodPut, "/v1/jobs/{id}/autoscaler", auth.Operator}, (*handler).setAutoscaler, false},
	{Route{http.MethodGet, "/v1/jobs/{id}/exceptions", auth.Operator}, (*handler).exceptions, false},
	{Route{http.MethodGet, "/v1/jobs/{id}/logs", auth.Operator}, (*handler).logs, false},
	{Route{http.MethodPost, "/v1/jobs/{id}/savepoints", auth.Operator}, (*handler).savepoint, false},
	{Route{http.MethodGet, "/v1/jobs/{id}/savepoints/{trigger}", auth.Viewer}, (*handler).savepointStatus, false},
	{Route{http.MethodPost, "/v1/jobs/{id}/stop", auth.Operator}, (*handler).stop, false},
	{Route{http.MethodGet, "/v1/jobs/{id}/state/{name}/{key}", auth.Operator}, (*handler).stateGet, true},
	{Route{http.MethodPost, "/v1/jobs/{id}/state/{name}:batchGet", auth.Operator}, (*handler).stateBatchGet, true},
	{Route{http.MethodPost, "/v1/sql", auth.Operator}, (*handler).submitSQL, false},
	{Route{http.MethodPost, "/v1/modules", auth.Operator}, (*handler).pushModule, false},
	{Route{http.MethodGet, "/v1/modules", auth.Viewer}, (*handler).modules, false},
	{Route{http.MethodGet, "/v1/modules/{digest}", auth.Viewer}, (*handler).module, false},
	{Route{http.MethodHead, "/v1/modules/{digest}", auth.Viewer}, (*handler).module, false},
	{Route{http.MethodDelete, "/v1/modules/{digest}", auth.Operator}, (*handler).deleteModule, false},
	{Route{http.MethodGet, "/v1/taskmanagers", auth.Viewer}, (*handler).taskManagers, false},
	{Route{http.MethodGet, "/v1/cluster", auth.Viewer}, (*handler).cluster, false},
	{Route{http.MethodGet, "/v1/cluster/self", auth.Viewer}, (*handler).clusterSelf, false},
	{Route{http.MethodPut, "/v1/cluster/members/{id}", auth.Admin}, (*handler).join, false},
	{Route{http.MethodGet, "/healthz", auth.Anyone}, (*handler).health, false},
}

// Routes returns every route that New serves, in a fresh slice.
func Routes() []Route {
	routes := make([]Route, len(table))
	for i, b := range table {
		routes[i] = b.Route
	}
	return routes
}

// allowed returns the methods served at pattern, for a 405's Allow header.
func allowed(pattern string) []string {
	var methods []string
	for _, b := range table {
		if b.Pattern == pattern {
			methods = append(methods, b.Method)
		}
	}
	return methods
}
