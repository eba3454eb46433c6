package rest

import (
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// DefaultMaxUpload is the size limit of a job upload when Options leaves it
// zero: 64 MiB.
const DefaultMaxUpload = 64 << 20

// Options configures the handler. The zero value is usable.
type Options struct {
	// MaxUpload caps the size in bytes of a request body, which bounds a
	// job's spec and modules together; 0 or less means DefaultMaxUpload.
	MaxUpload int64
	// Logger receives a line for every response with a 5xx status; nil
	// discards them.
	Logger *slog.Logger
	// MaxBatchKeys caps the keys one batchGet of queryable state may ask
	// for; 0 or less means DefaultMaxBatchKeys.
	MaxBatchKeys int
	// Observe, when set, is called after every request with the route it
	// matched ("GET /v1/jobs/{id}"; the pattern alone for a method the
	// route does not serve; UnmatchedRoute), its status code and the time
	// it took: the scheduler's request metrics. It must be safe for
	// concurrent use.
	Observe func(route string, code int, d time.Duration)
	// Users authenticates the callers of every route but /healthz, whose
	// roles must then allow the route (auth.go); nil serves everyone.
	// NB: a nil *auth.Tokens in it is not nil.
	Users Authenticator
	// ViewerState tells the reads of queryable state that viewers may
	// call; nil opens none.
	ViewerState ViewerStateFunc
	// CompileSQL compiles the scripts of POST /v1/sql; nil answers 501.
	CompileSQL SQLCompiler
}

// DefaultMaxBatchKeys is how many keys one batchGet may ask for when
// Options leaves MaxBatchKeys zero. Each key costs a lookup on a running
// task, so an unbounded batch could stall the job it reads.
const DefaultMaxBatchKeys = 10000

// handler serves the API for one Service.
type handler struct {
	svc          api.Service
	maxUpload    int64
	log          *slog.Logger
	maxBatchKeys int
	users        Authenticator
	viewerState  ViewerStateFunc
	compileSQL   SQLCompiler
}

// New returns a handler that serves the API of svc on the paths of Routes,
// answers other paths with 404 and other methods with 405, always with a
// JSON body. The handler is safe for concurrent use if svc is.
func New(svc api.Service, opts Options) http.Handler {
	h := &handler{svc: svc, maxUpload: opts.MaxUpload, log: opts.Logger, maxBatchKeys: opts.MaxBatchKeys,
		users: opts.Users, viewerState: opts.ViewerState, compileSQL: opts.CompileSQL}
	if h.maxBatchKeys <= 0 {
		h.maxBatchKeys = DefaultMaxBatchKeys
	}
	if h.maxUpload <= 0 {
		h.maxUpload = DefaultMaxUpload
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	all := slices.Collect(maps.Keys(patterns()))
	for _, b := range table {
		m := serving(b.Pattern, all)
		mux.Handle(b.Method+" "+m.pattern, named(b.Method+" "+b.Pattern, h.guard(m, h.serve(b.authorizing()))))
	}
	for p, methods := range patterns() {
		m := serving(p, all)
		mux.Handle(m.pattern, named(p, h.guard(m, h.methodNotAllowed(methods))))
	}
	mux.HandleFunc("/", h.serve(notFound))
	if opts.Observe != nil {
		return observed(mux, opts.Observe)
	}
	return mux
}

// patterns maps each pattern of the table to the methods served on it. A
// method-less pattern is less specific than the table's, so it catches
// exactly the requests with another method.
func patterns() map[string][]string {
	m := make(map[string][]string)
	for _, b := range table {
		m[b.Pattern] = allowed(b.Pattern)
	}
	return m
}

// serve adapts an endpoint to net/http: it bounds the request body and
// writes what the endpoint returns.
func (h *handler) serve(e endpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// NB: the bounded body goes into a copy of the request. The server
		// keeps the original, and can then still see that a client which
		// sent "Expect: 100-continue" never got to send its body; with the
		// body replaced in place it would wait for it before replying.
		r = r.WithContext(r.Context())
		r.Body = http.MaxBytesReader(w, r.Body, h.maxUpload)
		status, body, err := e(h, r)
		h.respond(w, r, status, body, err)
	}
}

func notFound(_ *handler, r *http.Request) (int, any, error) {
	return 0, nil, &statusError{api.ErrNotFound, fmt.Sprintf("no such endpoint: %s %s", r.Method, r.URL.Path)}
}

// methodNotAllowed returns the handler for a known path requested with a
// method it does not serve.
func (h *handler) methodNotAllowed(methods []string) http.HandlerFunc {
	allow := strings.Join(methods, ", ")
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		msg := fmt.Sprintf("method %s not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow)
		h.respond(w, r, 0, nil, &statusError{errMethodNotAllowed, msg})
	}
}

func (h *handler) jobs(r *http.Request) (int, any, error) {
	jobs, err := h.svc.Jobs(r.Context())
	if jobs == nil {
		jobs = []api.JobStatus{}
	}
	return http.StatusOK, struct {
		Jobs []api.JobStatus `json:"jobs"`
	}{jobs}, err
}

func (h *handler) job(r *http.Request) (int, any, error) {
	job, err := h.svc.Job(r.Context(), r.PathValue("id"))
	return http.StatusOK, job, err
}

// cancel cancels a job and returns its status after the cancel.
func (h *handler) cancel(r *http.Request) (int, any, error) {
	id := r.PathValue("id")
	if err := h.svc.Cancel(r.Context(), id); err != nil {
		return 0, nil, err
	}
	return h.job(r)
}

// checkpoints lists a job's checkpoints, newest first.
func (h *handler) checkpoints(r *http.Request) (int, any, error) {
	cps, err := h.svc.Checkpoints(r.Context(), r.PathValue("id"))
	if cps == nil {
		cps = []api.CheckpointStatus{}
	}
	return http.StatusOK, struct {
		Checkpoints []api.CheckpointStatus `json:"checkpoints"`
	}{cps}, err
}

func (h *handler) taskManagers(r *http.Request) (int, any, error) {
	tms, err := h.svc.TaskManagers(r.Context())
	if tms == nil {
		tms = []api.TaskManagerStatus{}
	}
	return http.StatusOK, struct {
		TaskManagers []api.TaskManagerStatus `json:"taskManagers"`
	}{tms}, err
}

func (h *handler) health(*http.Request) (int, any, error) {
	return http.StatusOK, map[string]string{"status": "ok"}, nil
}
