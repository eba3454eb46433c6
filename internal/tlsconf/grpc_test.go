package tlsconf_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/floe-stream/floe/internal/tlsconf"
)

// leaf parses the certificate of role r in a directory Init wrote.
func leaf(t *testing.T, dir string, r tlsconf.Role) *x509.Certificate {
	t.Helper()
	b, err := os.ReadFile(tlsconf.Dir(filepath.Join(dir, string(r))).Cert)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(b)
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRequireRole checks the interceptors' rule on the peers of calls: a
// verified certificate of an allowed role passes, anything else is refused
// with the status that says why.
func TestRequireRole(t *testing.T) {
	dir := initDir(t)
	withPeer := func(info credentials.AuthInfo) context.Context {
		return peer.NewContext(context.Background(), &peer.Peer{AuthInfo: info})
	}
	verified := func(r tlsconf.Role) context.Context {
		return withPeer(credentials.TLSInfo{State: tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{leaf(t, dir, r)}}}})
	}
	for _, tt := range []struct {
		name    string
		ctx     context.Context
		allowed []tlsconf.Role
		want    codes.Code
	}{
		{"no peer", context.Background(), []tlsconf.Role{tlsconf.TaskManager}, codes.Unauthenticated},
		{"plaintext peer", withPeer(nil), []tlsconf.Role{tlsconf.TaskManager}, codes.Unauthenticated},
		{"TLS without a verified certificate", withPeer(credentials.TLSInfo{}), []tlsconf.Role{tlsconf.TaskManager}, codes.Unauthenticated},
		{"client posing as a task manager", verified(tlsconf.Client), []tlsconf.Role{tlsconf.TaskManager, tlsconf.Scheduler}, codes.PermissionDenied},
		{"task manager", verified(tlsconf.TaskManager), []tlsconf.Role{tlsconf.TaskManager, tlsconf.Scheduler}, codes.OK},
		{"scheduler", verified(tlsconf.Scheduler), []tlsconf.Role{tlsconf.TaskManager, tlsconf.Scheduler}, codes.OK},
		{"any role", verified(tlsconf.Client), nil, codes.OK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := status.Code(tlsconf.RequireRole(tt.ctx, tt.allowed...)); got != tt.want {
				t.Errorf("RequireRole = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLoopback(t *testing.T) {
	for _, tt := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:6123", true},
		{"127.0.0.2:0", true},
		{"[::1]:8081", true},
		{"localhost:8081", true},
		{":6123", false},
		{"0.0.0.0:6123", false},
		{"[::]:6123", false},
		{"10.0.0.5:6123", false},
		{"sched.example:6123", false},
		{"127.0.0.1", false}, // no port: malformed
	} {
		if got := tlsconf.Loopback(tt.addr); got != tt.want {
			t.Errorf("Loopback(%q) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

// TestLoadClient checks the command-line client's configuration: it
// trusts the cluster CA, accepts only a scheduler, and presents a
// certificate only when given one.
func TestLoadClient(t *testing.T) {
	dir := initDir(t, "localhost")
	sched, tm := load(t, dir, tlsconf.Scheduler), load(t, dir, tlsconf.TaskManager)
	cliFiles := tlsconf.Dir(filepath.Join(dir, "client"))
	client := func(f tlsconf.Files) *tls.Config {
		t.Helper()
		c, err := tlsconf.LoadClient(f)
		if err != nil {
			t.Fatal(err)
		}
		c.ServerName = "localhost"
		return c
	}
	caOnly := tlsconf.Files{CA: cliFiles.CA}
	for _, tt := range []struct {
		name   string
		server *tls.Config
		client *tls.Config
		ok     bool
	}{
		{"CA only, to the REST API", sched.Server(true), client(caOnly), true},
		{"CA only, to a server that wants a certificate", sched.Server(false), client(caOnly), false},
		{"CA only, to a task manager", tm.Server(true), client(caOnly), false},
		{"with a client certificate", sched.Server(false, tlsconf.Client), client(cliFiles), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			serr, cerr := handshake(t, tt.server, tt.client)
			if ok := serr == nil && cerr == nil; ok != tt.ok {
				t.Errorf("connected %v, want %v (server: %v; client: %v)", ok, tt.ok, serr, cerr)
			}
		})
	}
	if _, err := tlsconf.LoadClient(tlsconf.Files{}); err == nil {
		t.Error("LoadClient without a CA succeeded")
	}
	if _, err := tlsconf.LoadClient(tlsconf.Files{CA: cliFiles.CA, Cert: cliFiles.Cert}); err == nil {
		t.Error("LoadClient with a certificate and no key succeeded")
	}
}
