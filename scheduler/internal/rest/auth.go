package rest

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/floe-stream/floe/internal/auth"
	"github.com/floe-stream/floe/scheduler/api"
)

// This file decides who may call a route: the user a request's bearer
// token names must have the route's role (Route.Role), or, for a read of
// queryable state that the job opens to viewers, be a viewer.

// Authenticator names the user of a bearer token. *auth.Tokens is one.
type Authenticator interface {
	// Authenticate returns the user whose token is token, and false for
	// a token it does not know. It is safe for concurrent use.
	Authenticate(token string) (auth.User, bool)
}

// ViewerStateFunc reports whether job id opens its queryable state name
// to viewers. It answers false for a job or a state it does not know.
type ViewerStateFunc func(ctx context.Context, id, name string) bool

// authenticateHeader is the WWW-Authenticate header of a 401 (RFC 6750).
const authenticateHeader = `Bearer realm="floe"`

// authorizing returns b's endpoint behind a check of the caller's role.
func (b binding) authorizing() endpoint {
	return func(h *handler, r *http.Request) (int, any, error) {
		if err := h.authorize(r, b); err != nil {
			return 0, nil, err
		}
		return b.serve(h, r)
	}
}

// authorize returns nil if the caller of r may call b, and otherwise an
// error that maps to 401 (no token, or an unknown one) or 403 (a role
// that may not). Without users, everyone may call everything.
func (h *handler) authorize(r *http.Request, b binding) error {
	if h.users == nil || b.Role == auth.Anyone {
		return nil
	}
	token, ok := bearer(r.Header.Get("Authorization"))
	if !ok {
		return &statusError{api.ErrUnauthenticated, "this scheduler needs a bearer token: send the header Authorization: Bearer TOKEN (the floe command sends $FLOE_TOKEN)"}
	}
	u, ok := h.users.Authenticate(token)
	if !ok {
		return &statusError{api.ErrUnauthenticated, "this scheduler does not know the bearer token: use a token that `floe token create` made for its --auth-tokens file"}
	}
	if u.Role.Allows(b.Role) {
		return nil
	}
	msg := fmt.Sprintf("token %s has role %s; %s %s needs %s", u.Name, u.Role, r.Method, b.Pattern, b.Role)
	if b.openable && u.Role.Allows(auth.Viewer) {
		if h.viewerState != nil && h.viewerState(r.Context(), r.PathValue("id"), r.PathValue("name")) {
			return nil
		}
		msg += fmt.Sprintf(", as job %s does not open state %q to viewers (state.readableBy in its spec)", r.PathValue("id"), r.PathValue("name"))
	}
	return &statusError{api.ErrForbidden, msg}
}

// bearer returns the token of an Authorization header "Bearer TOKEN"; the
// scheme is case-insensitive (RFC 9110).
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}
