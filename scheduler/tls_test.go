package scheduler

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/floe-stream/floe/internal/tlsconf"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// certs writes a development CA and its certificates into a new
// directory.
func certs(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "certs")
	if _, err := tlsconf.Init(dir, tlsconf.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// identity loads the certificate of role r from a certs directory.
func identity(t *testing.T, dir string, r tlsconf.Role) *tlsconf.Config {
	t.Helper()
	c, err := tlsconf.Load(tlsconf.Dir(filepath.Join(dir, string(r))))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// caPool reads the CA of a certs directory.
func caPool(t *testing.T, dir string) *x509.CertPool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(b) {
		t.Fatal("no CA in ca.pem")
	}
	return p
}

// startTLSServer starts a single scheduler with the scheduler identity of
// dir, serving gRPC and REST until the test ends.
func startTLSServer(t *testing.T, dir string) *Server {
	t.Helper()
	s, err := NewServer(Config{RPCAddr: "127.0.0.1:0", RESTAddr: "127.0.0.1:0", DataDir: t.TempDir(), TLS: identity(t, dir, tlsconf.Scheduler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return s
}

// TestTLSRefusesTaskManagerImpostors dials a scheduler that runs TLS as a
// fake task manager with every kind of wrong credentials: each is refused
// when it registers, heartbeats or reports a task's status, and none is
// ever registered. A task manager's certificate from the cluster's CA is
// accepted.
func TestTLSRefusesTaskManagerImpostors(t *testing.T) {
	dir, other := certs(t), certs(t)
	s := startTLSServer(t, dir)
	pool := caPool(t, dir)
	foreignTM, err := tls.LoadX509KeyPair(filepath.Join(other, "taskmanager", "cert.pem"), filepath.Join(other, "taskmanager", "key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		creds grpc.DialOption
		ok    bool
	}{
		{"plaintext", grpc.WithTransportCredentials(insecure.NewCredentials()), false},
		{"TLS without a certificate", grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool})), false},
		{"a client's certificate from the cluster CA", identity(t, dir, tlsconf.Client).DialOption(tlsconf.Scheduler), false},
		{"a task manager's certificate from another CA", grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, Certificates: []tls.Certificate{foreignTM}})), false},
		{"a task manager's certificate from the cluster CA", identity(t, dir, tlsconf.TaskManager).DialOption(tlsconf.Scheduler), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := grpc.NewClient(s.RPCAddr(), tt.creds)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			c := floev1.NewSchedulerClient(conn)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			reg, err := c.Register(ctx, &floev1.RegisterRequest{RpcAddr: "127.0.0.1:1", Slots: 1})
			if !tt.ok {
				if err == nil {
					t.Fatalf("registered as %s", reg.TaskManagerId)
				}
				if _, err := c.Heartbeat(ctx, &floev1.HeartbeatRequest{TaskManagerId: "tm-1"}); err == nil {
					t.Error("a heartbeat was answered")
				}
				if _, err := c.UpdateTaskStatus(ctx, &floev1.TaskStatusUpdate{}); err == nil {
					t.Error("a task status update was answered")
				}
				if tms, _ := s.TaskManagers(ctx); len(tms) != 0 {
					t.Errorf("task managers after a refused registration: %+v", tms)
				}
				return
			}
			if err != nil {
				t.Fatalf("register: %v", err)
			}
			if tms, _ := s.TaskManagers(ctx); len(tms) != 1 {
				t.Errorf("task managers after a registration: %+v", tms)
			}
		})
	}
}

// TestTLSREST reads the REST API of a scheduler that runs TLS: over HTTPS
// with the cluster CA, and no client certificate, it answers; a client
// that does not trust the CA, or speaks plain HTTP, gets no answer.
func TestTLSREST(t *testing.T) {
	dir := certs(t)
	s := startTLSServer(t, dir)
	url := "https://" + s.RESTAddr() + "/v1/jobs"
	get := func(tr *http.Transport, url string) (*http.Response, error) {
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Get(url)
		if err == nil {
			resp.Body.Close()
		}
		return resp, err
	}
	resp, err := get(&http.Transport{TLSClientConfig: &tls.Config{RootCAs: caPool(t, dir)}}, url)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s trusting the CA: %v %v", url, resp, err)
	}
	if _, err := get(&http.Transport{}, url); !errors.As(err, new(*tls.CertificateVerificationError)) {
		t.Errorf("GET %s trusting only the system's CAs: %v, want a certificate verification error", url, err)
	}
	plain := strings.Replace(url, "https", "http", 1)
	if resp, err := get(&http.Transport{}, plain); err == nil && resp.StatusCode != http.StatusBadRequest {
		t.Errorf("GET %s over plain HTTP: %s, want no answer or 400", plain, resp.Status)
	}
}

// TestTLSGroupForwards runs a group of three schedulers with TLS: Raft
// between them elects a leader over mutual TLS, and a follower forwards a
// write to the leader over HTTPS.
func TestTLSGroupForwards(t *testing.T) {
	g := startGroupTLS(t, 3, identity(t, certs(t), tlsconf.Scheduler))
	leader, f := g.leader(), g.follower()
	waitUntil(t, func() bool { _, err := f.leaderREST(); return err == nil })
	resp, body := g.do(t, f, http.MethodDelete, "/v1/jobs/nope", "", nil)
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get(leaderHeader) != leader.RESTAddr() {
		t.Errorf("DELETE through a follower: %s %s, %s %q; want the leader's 404 from %s", resp.Status, body, leaderHeader, resp.Header.Get(leaderHeader), leader.RESTAddr())
	}
}
