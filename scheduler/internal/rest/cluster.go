package rest

import (
	"fmt"
	"net/http"

	"github.com/floe-stream/floe/scheduler/api"
)

// This file serves the scheduler group: GET /v1/cluster for users, and
// two endpoints the members use among themselves, GET /v1/cluster/self
// (one member's applied index) and PUT /v1/cluster/members/{id} (a
// member's addresses, journaled by the leader).

// memberShape is what the body of PUT /v1/cluster/members/{id} looks
// like, for its 400 errors.
const memberShape = `{"restAddr": "HOST:PORT", "rpcAddr": "HOST:PORT"}`

// MemberRequest is the body of PUT /v1/cluster/members/{id}.
type MemberRequest struct {
	RESTAddr string `json:"restAddr"`
	RPCAddr  string `json:"rpcAddr,omitempty"`
}

// clusterService returns the Service as an api.ClusterService, or an
// error that maps to 404.
func (h *handler) clusterService() (api.ClusterService, error) {
	cs, ok := h.svc.(api.ClusterService)
	if !ok {
		return nil, fmt.Errorf("%w: this service reports no scheduler group", api.ErrNotFound)
	}
	return cs, nil
}

// cluster serves GET /v1/cluster: the scheduler group, when the service
// is a scheduler that reports one.
func (h *handler) cluster(r *http.Request) (int, any, error) {
	cs, err := h.clusterService()
	if err != nil {
		return 0, nil, err
	}
	st, err := cs.Cluster(r.Context())
	if st.Members == nil {
		st.Members = []api.ClusterMember{}
	}
	return http.StatusOK, st, err
}

// clusterSelf serves GET /v1/cluster/self: the answering member alone.
func (h *handler) clusterSelf(r *http.Request) (int, any, error) {
	cs, err := h.clusterService()
	if err != nil {
		return 0, nil, err
	}
	m, err := cs.Self(r.Context())
	return http.StatusOK, m, err
}

// join serves PUT /v1/cluster/members/{id}: a member tells the leader
// where it serves, and the leader journals it. It answers 200 with the
// member as journaled.
func (h *handler) join(r *http.Request) (int, any, error) {
	cs, err := h.clusterService()
	if err != nil {
		return 0, nil, err
	}
	var req MemberRequest
	if err := decodeBody(r.Body, &req, memberShape); err != nil {
		return 0, nil, err
	}
	if req.RESTAddr == "" {
		return 0, nil, badRequest(`want "restAddr" in the body %s`, memberShape)
	}
	m := api.ClusterMember{ID: r.PathValue("id"), RESTAddr: req.RESTAddr, RPCAddr: req.RPCAddr}
	if err := cs.Join(r.Context(), m); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, m, nil
}
