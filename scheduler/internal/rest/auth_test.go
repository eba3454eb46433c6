package rest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/auth"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// The tokens of the users of authEnv.
const (
	viewerToken   = "floe_viewer-token"
	operatorToken = "floe_operator-token"
	adminToken    = "floe_admin-token"
)

// users are authEnv's users: vic the viewer, olga the operator and ada
// the admin.
func users(t *testing.T) *auth.Tokens {
	t.Helper()
	file := auth.Line(auth.User{Name: "vic", Role: auth.Viewer}, viewerToken) + "\n" +
		auth.Line(auth.User{Name: "olga", Role: auth.Operator}, operatorToken) + "\n" +
		auth.Line(auth.User{Name: "ada", Role: auth.Admin}, adminToken) + "\n"
	toks, err := auth.Parse(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	return toks
}

// authEnv is a handler that checks tokens, in front of a service with a
// scheduler group, and one running job whose state "open" is open to
// viewers and "closed" is not.
type authEnv struct {
	*env
	id string
}

func newAuthEnv(t *testing.T) *authEnv {
	g := &groupFake{Fake: clienttest.NewFake()}
	e := &authEnv{env: &env{fake: g.Fake}}
	e.h = rest.New(g, rest.Options{Users: users(t), ViewerState: func(_ context.Context, id, name string) bool {
		return id == e.id && name == "open"
	}})
	e.id = e.as(operatorToken).mustSubmit(t)
	for _, name := range []string{"open", "closed"} {
		e.fake.AddState(e.id, name, "string", true)
		e.fake.PutState(e.id, name, "k", []byte("v"))
	}
	return e
}

// as returns an env whose requests carry token, or none if it is empty.
func (e *authEnv) as(token string) *env {
	return &env{fake: e.fake, h: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		e.h.ServeHTTP(w, r)
	})}
}

// call is one request of an auth test.
type call struct {
	method, path, body string
}

// do makes the call as token.
func (e *authEnv) do(t *testing.T, token string, c call) *httptest.ResponseRecorder {
	t.Helper()
	c.path = strings.ReplaceAll(c.path, "ID", e.id)
	if c.method == http.MethodPost && c.path == "/v1/jobs" {
		return e.as(token).submit(t, validJob...)
	}
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	return e.as(token).do(c.method, c.path, body, "application/json")
}

var (
	submitCall  = call{http.MethodPost, "/v1/jobs", ""}
	listCall    = call{http.MethodGet, "/v1/jobs", ""}
	statusCall  = call{http.MethodGet, "/v1/jobs/ID", ""}
	cancelCall  = call{http.MethodDelete, "/v1/jobs/ID", ""}
	rescaleCall = call{http.MethodPatch, "/v1/jobs/ID", `{"parallelism": 3}`}
	joinCall    = call{http.MethodPut, "/v1/cluster/members/b:7001", `{"restAddr": "b:8081"}`}
	// pushModuleCall pushes a module; its body stands for the Wasm.
	pushModuleCall = call{http.MethodPost, "/v1/modules?name=wc", "\x00asm"}
	sqlCall        = call{http.MethodPost, "/v1/sql", `{"sql": "ok"}`}
)

// errorOf checks that rec is an error response with status and returns
// its message.
func errorOf(t *testing.T, rec *httptest.ResponseRecorder, status int) string {
	t.Helper()
	var body struct{ Error string }
	decode(t, rec, status, &body)
	if body.Error == "" {
		t.Errorf("status %d with body %s, want an error message", rec.Code, rec.Body)
	}
	return body.Error
}

// TestUnauthenticated checks that a request without a token, or with one
// the scheduler does not know, is answered 401 with WWW-Authenticate, and
// that /healthz needs none.
func TestUnauthenticated(t *testing.T) {
	e := newAuthEnv(t)
	tests := []struct {
		name, header string
		want         string
	}{
		{"no header", "", "needs a bearer token"},
		{"unknown token", "Bearer floe_nobody", "does not know the bearer token"},
		{"a hash for a token", "Bearer " + strings.Fields(auth.Line(auth.User{Name: "x", Role: auth.Admin}, adminToken))[2], "does not know"},
		{"basic", "Basic dmljOnZpYw==", "needs a bearer token"},
		{"empty bearer", "Bearer ", "needs a bearer token"},
	}
	for _, tt := range tests {
		for _, c := range []call{submitCall, listCall, statusCall, joinCall, pushModuleCall, sqlCall} {
			t.Run(tt.name+" "+c.method+" "+c.path, func(t *testing.T) {
				h := &env{fake: e.fake, h: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if tt.header != "" {
						r.Header.Set("Authorization", tt.header)
					}
					e.h.ServeHTTP(w, r)
				})}
				rec := (&authEnv{env: h, id: e.id}).do(t, "", c)
				if msg := errorOf(t, rec, http.StatusUnauthorized); !strings.Contains(msg, tt.want) {
					t.Errorf("message %q, want one containing %q", msg, tt.want)
				}
				if got := rec.Header().Get("WWW-Authenticate"); got != `Bearer realm="floe"` {
					t.Errorf("WWW-Authenticate %q", got)
				}
			})
		}
	}
	if rec := e.as("").do(http.MethodGet, "/healthz", nil, ""); rec.Code != http.StatusOK {
		t.Errorf("GET /healthz without a token: %d %s", rec.Code, rec.Body)
	}
	if got := len(e.fake.Submissions()); got != 1 {
		t.Errorf("%d submissions, want only the operator's", got)
	}
}

// TestRoles checks what each role may call.
func TestRoles(t *testing.T) {
	tests := []struct {
		name  string
		token string
		call  call
		// status is the answer; a 403's message contains forbidden.
		status    int
		forbidden string
	}{
		{"viewer lists", viewerToken, listCall, 200, ""},
		{"viewer reads status", viewerToken, statusCall, 200, ""},
		{"viewer reads checkpoints", viewerToken, call{http.MethodGet, "/v1/jobs/ID/checkpoints", ""}, 200, ""},
		{"viewer reads task managers", viewerToken, call{http.MethodGet, "/v1/taskmanagers", ""}, 200, ""},
		{"viewer reads the group", viewerToken, call{http.MethodGet, "/v1/cluster", ""}, 200, ""},
		{"viewer cannot submit", viewerToken, submitCall, 403, "token vic has role viewer; POST /v1/jobs needs operator"},
		{"viewer cannot cancel", viewerToken, cancelCall, 403, "token vic has role viewer; DELETE /v1/jobs/{id} needs operator"},
		{"viewer cannot rescale", viewerToken, rescaleCall, 403, "needs operator"},
		{"viewer cannot savepoint", viewerToken, call{http.MethodPost, "/v1/jobs/ID/savepoints", `{}`}, 403, "needs operator"},
		// The trigger is unknown: the 404 is the service's answer, past the role check.
		{"viewer polls a savepoint", viewerToken, call{http.MethodGet, "/v1/jobs/ID/savepoints/t1", ""}, 404, ""},
		{"viewer cannot stop", viewerToken, call{http.MethodPost, "/v1/jobs/ID/stop", `{}`}, 403, "needs operator"},
		{"viewer reads an open state", viewerToken, call{http.MethodGet, "/v1/jobs/ID/state/open/k", ""}, 200, ""},
		{"viewer batch-reads an open state", viewerToken, call{http.MethodPost, "/v1/jobs/ID/state/open:batchGet", `{"keys": ["k"]}`}, 200, ""},
		{"viewer cannot read a closed state", viewerToken, call{http.MethodGet, "/v1/jobs/ID/state/closed/k", ""}, 403,
			`token vic has role viewer; GET /v1/jobs/{id}/state/{name}/{key} needs operator, as job ID does not open state "closed" to viewers`},
		{"viewer cannot batch-read a closed state", viewerToken, call{http.MethodPost, "/v1/jobs/ID/state/closed:batchGet", `{"keys": ["k"]}`}, 403, `state "closed"`},
		{"viewer cannot join", viewerToken, joinCall, 403, "needs admin"},
		{"viewer reads the autoscaler", viewerToken, call{http.MethodGet, "/v1/jobs/ID/autoscaler", ""}, 200, ""},
		{"viewer cannot set the autoscaler", viewerToken, call{http.MethodPut, "/v1/jobs/ID/autoscaler", `{"enabled": true}`}, 403,
			"token vic has role viewer; PUT /v1/jobs/{id}/autoscaler needs operator"},
		{"operator sets the autoscaler", operatorToken, call{http.MethodPut, "/v1/jobs/ID/autoscaler", `{"enabled": true}`}, 200, ""},
		{"viewer cannot push a module", viewerToken, pushModuleCall, 403, "token vic has role viewer; POST /v1/modules needs operator"},
		{"viewer cannot submit SQL", viewerToken, sqlCall, 403, "token vic has role viewer; POST /v1/sql needs operator"},
		// The env has no SQL compiler: the 501 is past the role check.
		{"operator submits SQL", operatorToken, sqlCall, 501, ""},
		{"viewer cannot delete a module", viewerToken, call{http.MethodDelete, "/v1/modules/" + strings.Repeat("a", 64), ""}, 403, "needs operator"},
		{"viewer lists modules", viewerToken, call{http.MethodGet, "/v1/modules", ""}, 200, ""},
		{"operator pushes a module", operatorToken, pushModuleCall, 201, ""},
		{"operator submits", operatorToken, submitCall, 201, ""},
		// The job takes no checkpoints: the 409 is the service's answer.
		{"operator rescales", operatorToken, rescaleCall, 409, ""},
		{"operator triggers a savepoint", operatorToken, call{http.MethodPost, "/v1/jobs/ID/savepoints", `{}`}, 409, ""},
		{"operator polls a savepoint", operatorToken, call{http.MethodGet, "/v1/jobs/ID/savepoints/t1", ""}, 404, ""},
		{"operator reads a closed state", operatorToken, call{http.MethodGet, "/v1/jobs/ID/state/closed/k", ""}, 200, ""},
		{"operator cannot join", operatorToken, joinCall, 403, "token olga has role operator; PUT /v1/cluster/members/{id} needs admin"},
		{"operator cancels", operatorToken, cancelCall, 200, ""},
		{"admin joins", adminToken, joinCall, 200, ""},
		{"admin lists", adminToken, listCall, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newAuthEnv(t)
			rec := e.do(t, tt.token, tt.call)
			if tt.status != http.StatusForbidden {
				if rec.Code != tt.status {
					t.Errorf("status %d, want %d; body %s", rec.Code, tt.status, rec.Body)
				}
				return
			}
			want := strings.ReplaceAll(tt.forbidden, "job ID", "job "+e.id)
			if msg := errorOf(t, rec, http.StatusForbidden); !strings.Contains(msg, want) {
				t.Errorf("message %q, want one containing %q", msg, want)
			}
		})
	}
}

// TestViewerStateUnset checks that without Options.ViewerState no state
// is open to viewers.
func TestViewerStateUnset(t *testing.T) {
	fake := clienttest.NewFake()
	h := rest.New(fake, rest.Options{Users: users(t)})
	id, err := fake.Submit(context.Background(), api.Submission{Spec: []byte(spec), Modules: map[string][]byte{"ops": []byte("\x00asm")}})
	if err != nil {
		t.Fatal(err)
	}
	fake.AddState(id, "open", "string", true)
	req := httptest.NewRequest(http.MethodGet, "/v1/jobs/"+id+"/state/open/k", nil)
	req.Header.Set("Authorization", "Bearer "+viewerToken)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	errorOf(t, rec, http.StatusForbidden)
}

// TestRoutesDeclareRoles checks that every route declares the role it
// needs, and that only /healthz is open to anyone.
func TestRoutesDeclareRoles(t *testing.T) {
	for _, r := range rest.Routes() {
		switch {
		case r.Role == 0:
			t.Errorf("route %s %s declares no role", r.Method, r.Pattern)
		case r.Role == auth.Anyone && r.Pattern != "/healthz":
			t.Errorf("route %s %s is open to anyone", r.Method, r.Pattern)
		}
	}
}

// TestNoUsers checks that without Users every route is served to
// requests without a token, as before tokens existed.
func TestNoUsers(t *testing.T) {
	e := newEnv(t, rest.Options{})
	id := e.mustSubmit(t)
	if rec := e.do(http.MethodDelete, "/v1/jobs/"+id, nil, ""); rec.Code != http.StatusOK {
		t.Errorf("DELETE without a token or users: %d %s", rec.Code, rec.Body)
	}
}
