// Package fakes3 runs an in-memory S3 server (gofakes3) on the loopback
// interface for tests, and hands out store configurations that reach it
// over real HTTP.
package fakes3

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/floe-stream/floe/storage/ckstore/s3store"
)

// Server is a running fake S3 server.
type Server struct {
	// Endpoint is the server's host:port, on 127.0.0.1.
	Endpoint string
	// URL is "http://" + Endpoint.
	URL string

	srv     *httptest.Server
	buckets atomic.Int64
}

// Start starts a server that stops when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	srv := httptest.NewServer(gofakes3.New(s3mem.New(), gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	t.Cleanup(srv.Close)
	return &Server{Endpoint: strings.TrimPrefix(srv.URL, "http://"), URL: srv.URL, srv: srv}
}

// CloseConnections closes every connection to the server, so that clients
// whose transports the test does not own stop their connection goroutines.
func (s *Server) CloseConnections() {
	s.srv.CloseClientConnections()
}

// Bucket returns a bucket name not yet used on this server.
func (s *Server) Bucket() string {
	return fmt.Sprintf("floe-test-%d", s.buckets.Add(1))
}

// Config returns a configuration for a new bucket on the server, which New
// will create, using a transport whose connections close when t ends (so
// tests can check for leaked goroutines).
func (s *Server) Config(t testing.TB, prefix string) s3store.Config {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return s3store.Config{
		Endpoint:     s.Endpoint,
		AccessKey:    "test-access-key",
		SecretKey:    "test-secret-key",
		Region:       "us-east-1",
		Bucket:       s.Bucket(),
		Prefix:       prefix,
		CreateBucket: true,
		MaxRetries:   1,
		Transport:    tr,
	}
}
