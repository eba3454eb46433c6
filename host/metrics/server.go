package metrics

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Server serves an Exporter's metrics at /metrics.
type Server struct {
	lis net.Listener
	srv *http.Server
}

// Listen opens addr (host:port; port 0 picks a free port) for e's metrics;
// Serve serves them, over TLS with tc when it is not nil.
func Listen(addr string, e *Exporter, tc *tls.Config) (*Server, error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listener: %w", err)
	}
	if tc != nil {
		lis = tls.NewListener(lis, tc)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", e.Handler())
	return &Server{lis: lis, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.lis.Addr().String() }

// Serve serves until Close; it returns nil after Close.
func (s *Server) Serve() error {
	if err := s.srv.Serve(s.lis); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}

// Close stops the server, letting scrapes in progress finish for up to a
// second, and closes its listener.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = s.srv.Close()
	}
	// NB: Shutdown closes only the listeners Serve was given; this one may
	// not have been.
	s.lis.Close()
	return err
}
