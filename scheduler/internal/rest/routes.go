package rest

import "net/http"

// Route is one endpoint of the API: an HTTP method and a path pattern in
// net/http's syntax, e.g. {GET /v1/jobs/{id}}. A pattern may end in a custom
// method after its last wildcard, as in {POST
// /v1/jobs/{id}/state/{name}:batchGet} (see mux.go).
type Route struct {
	Method  string
	Pattern string
}

// endpoint serves one route: it returns the status code and the value to
// encode as JSON, or an error for respond to map.
type endpoint func(h *handler, r *http.Request) (int, any, error)

// binding ties a route to its endpoint.
type binding struct {
	Route
	serve endpoint
}

// table is the API. Routes exports it; New serves it.
var table = []binding{
	{Route{http.MethodPost, "/v1/jobs"}, (*handler).submit},
	{Route{http.MethodGet, "/v1/jobs"}, (*handler).jobs},
	{Route{http.MethodGet, "/v1/jobs/{id}"}, (*handler).job},
	{Route{http.MethodDelete, "/v1/jobs/{id}"}, (*handler).cancel},
	{Route{http.MethodPatch, "/v1/jobs/{id}"}, (*handler).rescale},
	{Route{http.MethodGet, "/v1/jobs/{id}/checkpoints"}, (*handler).checkpoints},
	{Route{http.MethodGet, "/v1/jobs/{id}/exceptions"}, (*handler).exceptions},
	{Route{http.MethodGet, "/v1/jobs/{id}/logs"}, (*handler).logs},
	{Route{http.MethodPost, "/v1/jobs/{id}/savepoints"}, (*handler).savepoint},
	{Route{http.MethodPost, "/v1/jobs/{id}/stop"}, (*handler).stop},
	{Route{http.MethodGet, "/v1/jobs/{id}/state/{name}/{key}"}, (*handler).stateGet},
	{Route{http.MethodPost, "/v1/jobs/{id}/state/{name}:batchGet"}, (*handler).stateBatchGet},
	{Route{http.MethodGet, "/v1/taskmanagers"}, (*handler).taskManagers},
	{Route{http.MethodGet, "/v1/cluster"}, (*handler).cluster},
	{Route{http.MethodGet, "/v1/cluster/self"}, (*handler).clusterSelf},
	{Route{http.MethodPut, "/v1/cluster/members/{id}"}, (*handler).join},
	{Route{http.MethodGet, "/healthz"}, (*handler).health},
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
