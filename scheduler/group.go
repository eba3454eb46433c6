package scheduler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/journal"
	"github.com/floe-stream/floe/scheduler/internal/replog"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// This file makes the members of a group known to each other. Raft knows
// only Raft addresses, so each member's REST and RPC addresses are
// journaled (journal.Member): the leader's own as it takes the lead, a
// follower's when it asks the leader to (announce, PUT
// /v1/cluster/members/{id}), so that they survive restarts and snapshots
// and every member learns every other's by applying the log. A follower
// forwards REST writes to the leader's (forward.go); GET /v1/cluster asks
// every member for its applied index at its own.

var _ api.ClusterService = (*Server)(nil)

// memberTimeout bounds one request of a member to another: asking its
// applied index, or announcing itself to the leader.
const memberTimeout = time.Second

// announceInterval is how often a member checks that the log holds its
// addresses, and asks the leader to journal them if not.
const announceInterval = time.Second

// self returns this member's addresses.
func (s *Server) self() journal.Member {
	return journal.Member{ID: s.rlog.ID(), REST: s.RESTAddr(), RPC: s.RPCAddr()}
}

// journaled returns the addresses the log holds for a member.
func (s *Server) journaled(id string) (journal.Member, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fsm.Member(id)
}

// Self implements api.ClusterService.
func (s *Server) Self(context.Context) (api.ClusterMember, error) {
	me := s.self()
	leader, _ := s.rlog.Leader()
	return api.ClusterMember{ID: me.ID, RaftAddr: s.cfg.RaftAddr, RESTAddr: me.REST, RPCAddr: me.RPC,
		Leader: leader != "" && leader == me.ID, Applied: s.rlog.Applied(), Reachable: true}, nil
}

// Cluster implements api.ClusterService: the group of schedulers as this
// one sees it. Every other member is asked for its applied index at the
// REST address the log holds for it, all at once and for memberTimeout
// at most; one that does not answer is not Reachable.
func (s *Server) Cluster(ctx context.Context) (api.ClusterStatus, error) {
	leader, _ := s.rlog.Leader()
	st := api.ClusterStatus{Leader: leader, Term: s.rlog.Term()}
	self, _ := s.Self(ctx)
	members := s.rlog.Members()
	st.Members = make([]api.ClusterMember, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		if m.ID == self.ID {
			self.Leader = m.Leader
			st.Members[i] = self
			continue
		}
		cm := api.ClusterMember{ID: m.ID, RaftAddr: m.Addr, Leader: m.Leader}
		if j, ok := s.journaled(m.ID); ok {
			cm.RESTAddr, cm.RPCAddr = j.REST, j.RPC
		}
		st.Members[i] = cm
		if cm.RESTAddr == "" {
			continue
		}
		wg.Add(1)
		go func() { // NB: request-scoped, waited for below
			defer wg.Done()
			s.askApplied(ctx, &st.Members[i])
		}()
	}
	wg.Wait()
	slices.SortFunc(st.Members, func(a, b api.ClusterMember) int { return strings.Compare(a.ID, b.ID) })
	return st, nil
}

// askApplied asks a member for its applied index (GET /v1/cluster/self)
// and marks it Reachable if it answers as that member.
func (s *Server) askApplied(ctx context.Context, m *api.ClusterMember) {
	ctx, cancel := context.WithTimeout(ctx, memberTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.peerScheme()+"://"+m.RESTAddr+"/v1/cluster/self", nil)
	if err != nil {
		return
	}
	s.asMember(req)
	resp, err := s.peers.Do(req)
	if err != nil {
		s.log.Debug("asking a member for its applied index", "member", m.ID, "err", err)
		return
	}
	defer resp.Body.Close()
	var got api.ClusterMember
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&got) != nil || got.ID != m.ID {
		s.log.Debug("a member's answer for its applied index", "member", m.ID, "status", resp.StatusCode, "id", got.ID)
		return
	}
	m.Applied, m.Reachable = got.Applied, true
}

// Join implements api.ClusterService: it journals a member's addresses,
// unless the log holds them already.
func (s *Server) Join(ctx context.Context, m api.ClusterMember) error {
	if !slices.ContainsFunc(s.rlog.Members(), func(x replog.Member) bool { return x.ID == m.ID }) {
		return fmt.Errorf("%w: %q is not a member of this scheduler group", api.ErrBadRequest, m.ID)
	}
	want := journal.Member{ID: m.ID, REST: m.RESTAddr, RPC: m.RPCAddr}
	if got, ok := s.journaled(m.ID); ok && got == want {
		return nil
	}
	_, err := s.propose(ctx, want)
	return err
}

// announcing announces this member until the server stops.
func (s *Server) announcing() {
	t := time.NewTicker(announceInterval)
	defer t.Stop()
	warned := false // about a refused token, once
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(s.ctx, memberTimeout)
		err := s.announce(ctx)
		switch {
		case err != nil && errors.Is(err, errMemberRefused) && !warned:
			warned = true
			s.log.Warn("the leader refuses this member's token: give it an admin's with --ha-token-file (docs/security.md)", "err", err)
		case err != nil && s.ctx.Err() == nil:
			s.log.Debug("announcing this scheduler's addresses to the group", "err", err)
		}
		cancel()
	}
}

// announce makes sure the log holds this member's addresses: the leader
// journals them, a follower asks the leader to.
func (s *Server) announce(ctx context.Context) error {
	me := s.self()
	if got, ok := s.journaled(me.ID); ok && got == me {
		return nil
	}
	if s.isLeading() {
		return s.Join(ctx, api.ClusterMember{ID: me.ID, RESTAddr: me.REST, RPCAddr: me.RPC})
	}
	if me.REST == "" {
		return nil // without a REST API of its own, a follower cannot ask
	}
	target, err := s.leaderREST()
	if err != nil {
		return err
	}
	body, err := json.Marshal(rest.MemberRequest{RESTAddr: me.REST, RPCAddr: me.RPC})
	if err != nil {
		panic(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, s.peerScheme()+"://"+target+"/v1/cluster/members/"+url.PathEscape(me.ID), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(forwardedBy, me.ID) // a member that does not lead must not forward it again
	s.asMember(req)
	resp, err := s.peers.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return fmt.Errorf("%w: the leader at %s answered %s", errMemberRefused, target, resp.Status)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the leader at %s answered %s", target, resp.Status)
	}
	return nil
}
