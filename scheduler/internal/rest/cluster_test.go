package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// groupFake is a Service that reports a scheduler group of which it is
// member "a".
type groupFake struct {
	*clienttest.Fake
	joined []api.ClusterMember
}

func (g *groupFake) Cluster(context.Context) (api.ClusterStatus, error) {
	return api.ClusterStatus{Leader: "a", Term: 2, Members: []api.ClusterMember{{ID: "a", Leader: true, Applied: 7, Reachable: true}}}, nil
}

func (g *groupFake) Self(context.Context) (api.ClusterMember, error) {
	return api.ClusterMember{ID: "a", RESTAddr: "h:1", Leader: true, Applied: 7, Reachable: true}, nil
}

func (g *groupFake) Join(_ context.Context, m api.ClusterMember) error {
	if m.ID != "a" && m.ID != "b:7001" {
		return fmt.Errorf("%w: %q is not a member", api.ErrBadRequest, m.ID)
	}
	g.joined = append(g.joined, m)
	return nil
}

// TestClusterEndpoints checks GET /v1/cluster/self and PUT
// /v1/cluster/members/{id}, and that a Service without a group answers
// them 404.
func TestClusterEndpoints(t *testing.T) {
	g := &groupFake{Fake: clienttest.NewFake()}
	e := &env{fake: g.Fake, h: rest.New(g, rest.Options{})}
	rec := e.do(http.MethodGet, "/v1/cluster/self", nil, "")
	var self api.ClusterMember
	if err := json.Unmarshal(rec.Body.Bytes(), &self); err != nil || rec.Code != http.StatusOK || self.ID != "a" || self.Applied != 7 {
		t.Errorf("GET /v1/cluster/self: %d %s", rec.Code, rec.Body)
	}
	rec = e.do(http.MethodPut, "/v1/cluster/members/b:7001", strings.NewReader(`{"restAddr": "b:8081", "rpcAddr": "b:6123"}`), "application/json")
	if rec.Code != http.StatusOK || len(g.joined) != 1 || g.joined[0] != (api.ClusterMember{ID: "b:7001", RESTAddr: "b:8081", RPCAddr: "b:6123"}) {
		t.Errorf("PUT /v1/cluster/members/b:7001: %d %s, joined %+v", rec.Code, rec.Body, g.joined)
	}
	for _, tc := range []struct{ path, body, want string }{
		{"/v1/cluster/members/b:7001", `{}`, `want "restAddr"`},
		{"/v1/cluster/members/b:7001", `{"restAddr": "b:8081", "extra": 1}`, `unknown field "extra"`},
		{"/v1/cluster/members/zz", `{"restAddr": "z:1"}`, `"zz" is not a member`},
	} {
		rec := e.do(http.MethodPut, tc.path, strings.NewReader(tc.body), "application/json")
		var msg struct{ Error string }
		json.Unmarshal(rec.Body.Bytes(), &msg)
		if rec.Code != http.StatusBadRequest || !strings.Contains(msg.Error, tc.want) {
			t.Errorf("PUT %s %s: %d %s, want 400 with %q", tc.path, tc.body, rec.Code, rec.Body, tc.want)
		}
	}
	plain := newEnv(t, rest.Options{})
	for _, method := range []string{http.MethodGet, http.MethodPut} {
		path := map[string]string{http.MethodGet: "/v1/cluster/self", http.MethodPut: "/v1/cluster/members/a"}[method]
		rec := plain.do(method, path, strings.NewReader(`{"restAddr": "a:1"}`), "application/json")
		if rec.Code != http.StatusNotFound {
			t.Errorf("%s %s on a service without a group: %d %s, want 404", method, path, rec.Code, rec.Body)
		}
	}
}
