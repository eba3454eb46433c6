package scheduler

import (
	"context"
	"slices"
	"strings"

	"github.com/floe-stream/floe/scheduler/api"
)

var _ api.ClusterService = (*Server)(nil)

// Cluster implements api.ClusterService: the group of schedulers as this
// one sees it. Only this scheduler's applied index is known (Reachable);
// the REST address is known only for this one.
func (s *Server) Cluster(ctx context.Context) (api.ClusterStatus, error) {
	leader, _ := s.rlog.Leader()
	st := api.ClusterStatus{Leader: leader, Term: s.rlog.Term()}
	self := s.cfg.RaftAddr
	for _, m := range s.rlog.Members() {
		cm := api.ClusterMember{ID: m.ID, RaftAddr: m.Addr, Leader: m.Leader}
		if self == "" {
			cm.RaftAddr = "" // a single scheduler: no network
		}
		if m.Addr == self || self == "" {
			cm.RESTAddr, cm.Applied, cm.Reachable = s.RESTAddr(), s.rlog.Applied(), true
		}
		st.Members = append(st.Members, cm)
	}
	slices.SortFunc(st.Members, func(a, b api.ClusterMember) int { return strings.Compare(a.ID, b.ID) })
	return st, nil
}
