package scheduler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/floe-stream/floe/internal/auth"
)

// This file wires users into the REST API (Config.AuthTokens): the token
// file is loaded as the server starts and again on ReloadAuthTokens, and
// the REST handler asks the tokens it holds now. A request a follower
// forwards keeps its Authorization header, so the leader authorises the
// user, not the follower; the members' own requests to one another
// carry Config.MemberToken.

// errMemberRefused is the leader's 401 or 403 to this member's own
// request: its token (Config.MemberToken) is missing, unknown or not an
// admin's.
var errMemberRefused = errors.New("the leader refuses this member's token")

// users are the REST API's users, swapped whole on a reload.
type users struct {
	tokens atomic.Pointer[auth.Tokens]
}

// Authenticate implements rest.Authenticator with the tokens loaded last.
func (u *users) Authenticate(token string) (auth.User, bool) {
	return u.tokens.Load().Authenticate(token)
}

// loadUsers loads Config.AuthTokens, if set, and logs whether the REST
// API checks tokens.
func (s *Server) loadUsers() error {
	if s.cfg.AuthTokens == "" {
		if s.cfg.RESTAddr != "" {
			s.log.Warn("the REST API is unauthenticated: anyone who reaches it may submit, cancel and read every job (see --auth-tokens, docs/security.md)")
		}
		return nil
	}
	t, err := auth.Load(s.cfg.AuthTokens)
	if err != nil {
		return fmt.Errorf("scheduler: users of the REST API: %w", err)
	}
	s.users = &users{}
	s.users.tokens.Store(t)
	s.log.Info("the REST API needs bearer tokens", "tokens", s.cfg.AuthTokens, "users", t.Len())
	if s.cfg.RaftAddr != "" && s.cfg.MemberToken == "" {
		s.log.Warn("this member has no token of its own (--ha-token-file): if the other members check tokens too, it cannot make its addresses known to the leader nor read theirs")
	}
	if t.Len() == 0 {
		s.log.Warn("the token file has no users: every request but /healthz is refused (add one with floe token create)", "tokens", s.cfg.AuthTokens)
	}
	return nil
}

// ReloadAuthTokens reads Config.AuthTokens again, so that users added or
// removed since take effect. A file that does not parse leaves the users
// as they were and returns the error. Without AuthTokens it does nothing.
func (s *Server) ReloadAuthTokens() error {
	if s.users == nil {
		return nil
	}
	t, err := auth.Load(s.cfg.AuthTokens)
	if err != nil {
		return err
	}
	s.users.tokens.Store(t)
	s.log.Info("reloaded the REST API's users", "tokens", s.cfg.AuthTokens, "users", t.Len())
	return nil
}

// viewerState tells whether job id opens its queryable state name to
// viewers (state.readableBy in its spec).
func (s *Server) viewerState(_ context.Context, id, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.machine().Job(id)
	return j != nil && j.Plan != nil && j.Plan.Job != nil && j.Plan.Job.State.OpenToViewer(name)
}

// asMember makes req, a request of this member to another, carry
// Config.MemberToken, if set.
func (s *Server) asMember(req *http.Request) {
	if s.cfg.MemberToken != "" {
		req.Header.Set("Authorization", "Bearer "+s.cfg.MemberToken)
	}
}
