package clienttest

import (
	"net/http/httptest"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// NewServer serves svc through the scheduler's REST handler with default
// options until tb ends. Clients should use http.DefaultClient or the
// server's Client, whose idle connections the server closes, so that the
// goroutine-leak check of the calling package's TestMain passes.
func NewServer(tb testing.TB, svc api.Service) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(rest.New(svc, rest.Options{}))
	tb.Cleanup(srv.Close)
	return srv
}
