package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/floe-stream/floe/internal/tlsconf"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// This file makes any member of a group answer REST writes: a follower
// forwards every request but a GET or HEAD to the leader's REST address
// (journaled, see group.go) through a reverse proxy, so that a client,
// curl included, need not follow a redirect or know which member leads.
// Reads are served from the follower's applied state.

// forwardedBy is the header a follower adds to a request it forwards to
// the leader, naming itself. A scheduler that does not lead answers a
// request that carries it 503 rather than forwarding it again: a request
// is forwarded at most once, so two members that each believe the other
// leads cannot pass it back and forth.
const forwardedBy = "X-Floe-Forwarded-By"

// leaderHeader, on an answer a follower forwarded, names the leader's
// REST address that answered it.
const leaderHeader = "X-Floe-Leader"

// appliedHeader, on the leader's answer to a forwarded request, is the
// leader's applied log index once it has served it. The follower holds
// the answer until it has applied as much (appliedWait at most), so that
// a client reading from the follower next sees its own write: a job it
// submitted through a follower is there when it asks for it.
const appliedHeader = "X-Floe-Applied"

// appliedWait bounds how long a follower holds a forwarded answer for its
// log to catch up with the leader's.
const appliedWait = 5 * time.Second

// peerDialTimeout bounds connecting to another member's REST API. The
// answer itself is bounded by the REST server's write timeout.
const peerDialTimeout = 2 * time.Second

// leaderKey is the request context's key for the leader's REST address
// a request is forwarded to.
type leaderKey struct{}

// newPeerTransport returns the transport the server's requests to other
// members go through, forwarded ones included. With TLS, it presents this
// scheduler's certificate and accepts only another scheduler's.
func newPeerTransport(c *tlsconf.Config) *http.Transport {
	t := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: peerDialTimeout}).DialContext,
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     time.Minute,
	}
	if c != nil {
		t.TLSClientConfig = c.Client(tlsconf.Scheduler)
	}
	return t
}

// peerScheme is the URL scheme of the other members' REST APIs: https
// when the group runs TLS.
func (s *Server) peerScheme() string {
	if s.cfg.TLS != nil {
		return "https"
	}
	return "http"
}

// newProxy returns the reverse proxy that forwards a request to the
// leader whose REST address is in the request's context. The request's
// body and headers go through as they are, plus forwardedBy and
// X-Forwarded-For; the leader's status, headers and body come back, plus
// leaderHeader. A leader that cannot be reached is answered 503.
func (s *Server) newProxy(t http.RoundTripper) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: s.peerScheme(), Host: pr.In.Context().Value(leaderKey{}).(string)})
			pr.Out.Host = pr.In.Host
			pr.SetXForwarded()
			pr.Out.Header.Set(forwardedBy, s.rlog.ID())
		},
		Transport: t,
		ErrorLog:  slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		ModifyResponse: func(resp *http.Response) error {
			resp.Header.Set(leaderHeader, resp.Request.URL.Host)
			if n, err := strconv.ParseUint(resp.Header.Get(appliedHeader), 10, 64); err == nil {
				s.awaitApplied(resp.Request.Context(), n)
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			target := r.Context().Value(leaderKey{})
			rest.WriteError(w, r, s.log, fmt.Errorf("%w: forwarding to the leader at %s: %v", api.ErrUnavailable, target, err))
		},
	}
}

// forwarding returns a handler that serves reads, and writes on the
// leader, with h, and forwards writes on a follower to the leader.
func (s *Server) forwarding(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && !leaderRead(r) {
			h.ServeHTTP(w, r)
			return
		}
		if s.isLeading() {
			if r.Header.Get(forwardedBy) != "" {
				w = &appliedWriter{ResponseWriter: w, s: s}
			}
			h.ServeHTTP(w, r)
			return
		}
		if by := r.Header.Get(forwardedBy); by != "" {
			rest.WriteError(w, r, s.log, fmt.Errorf("%w: forwarded here by %s, but this scheduler does not lead either; a request is forwarded once at most", errNotLeader, by))
			return
		}
		target, err := s.leaderREST()
		if err != nil {
			rest.WriteError(w, r, s.log, err)
			return
		}
		s.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), leaderKey{}, target)))
	})
}

// leaderRead reports whether a read needs the leader: a job's logs are
// fetched from its task managers, whose connections only the leader has.
func leaderRead(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/v1/jobs/") && strings.HasSuffix(r.URL.Path, "/logs")
}

// leaderREST returns the leader's REST address. It fails with
// api.ErrUnavailable while no leader is known (an election), when this
// member leads but does not serve yet, and when the log does not hold the
// leader's REST address yet (it journals it as it takes the lead).
func (s *Server) leaderREST() (string, error) {
	id, _ := s.rlog.Leader()
	switch {
	case id == "":
		return "", fmt.Errorf("%w: no scheduler leads the group now (an election is under way)", api.ErrUnavailable)
	case id == s.rlog.ID():
		return "", errNotLeader // it leads, but is still catching up with the log
	}
	m, ok := s.journaled(id)
	if !ok || m.REST == "" {
		return "", fmt.Errorf("%w: the leader %s has not made its REST address known yet", api.ErrUnavailable, id)
	}
	return m.REST, nil
}

// fsmApplied is the index of the last command this member's job state
// has applied. Raft's own applied index will not do: raft counts an entry
// applied once it has handed it to the FSM's goroutine, before the FSM has
// run it, so a read right after could still miss the write.
func (s *Server) fsmApplied() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fsm.Applied()
}

// awaitApplied waits until this member has applied the log up to index
// n, for appliedWait at most.
func (s *Server) awaitApplied(ctx context.Context, n uint64) {
	ctx, cancel := context.WithTimeout(ctx, appliedWait)
	defer cancel()
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for s.fsmApplied() < n {
		select {
		case <-ctx.Done():
			s.log.Debug("a forwarded answer goes back before this member applied the write", "applied", s.fsmApplied(), "want", n)
			return
		case <-t.C:
		}
	}
}

// appliedWriter sets appliedHeader on the leader's answer to a forwarded
// request, as the answer's header is written: every command the request
// proposed is applied by then.
type appliedWriter struct {
	http.ResponseWriter
	s     *Server
	wrote bool
}

func (w *appliedWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		w.Header().Set(appliedHeader, strconv.FormatUint(w.s.fsmApplied(), 10))
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *appliedWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *appliedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
