package tlsconf_test

import (
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/tlsconf"
)

// initDir writes a development CA and its certificates into a new
// directory.
func initDir(t *testing.T, hosts ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "certs")
	if _, err := tlsconf.Init(dir, tlsconf.InitOptions{Hosts: hosts}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func load(t *testing.T, dir string, r tlsconf.Role) *tlsconf.Config {
	t.Helper()
	c, err := tlsconf.Load(tlsconf.Dir(filepath.Join(dir, string(r))))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	files, err := tlsconf.Init(dir, tlsconf.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2+3*len(tlsconf.Roles) {
		t.Errorf("wrote %d files: %v", len(files), files)
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, "key.pem") && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", f, fi.Mode().Perm())
		}
	}
	for _, r := range tlsconf.Roles {
		if got := load(t, dir, r).Role(); got != r {
			t.Errorf("the %s certificate names role %q", r, got)
		}
	}
	if _, err := tlsconf.Init(dir, tlsconf.InitOptions{}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second Init into the same directory: %v, want a refusal", err)
	}
}

func TestLoadRefuses(t *testing.T) {
	dir, other := initDir(t), initDir(t)
	sched := tlsconf.Dir(filepath.Join(dir, "scheduler"))
	foreign := tlsconf.Dir(filepath.Join(other, "scheduler"))
	for _, tt := range []struct {
		name  string
		files tlsconf.Files
		want  string
	}{
		{"no key", tlsconf.Files{CA: sched.CA, Cert: sched.Cert}, "need a CA, a certificate and a key"},
		{"missing CA file", tlsconf.Files{CA: sched.CA + ".x", Cert: sched.Cert, Key: sched.Key}, "read CA"},
		{"CA not PEM", tlsconf.Files{CA: sched.Key + "", Cert: sched.Cert, Key: sched.Key}, "holds no PEM certificate"},
		{"key of another certificate", tlsconf.Files{CA: sched.CA, Cert: sched.Cert, Key: foreign.Key}, "load"},
		{"certificate of another CA", tlsconf.Files{CA: sched.CA, Cert: foreign.Cert, Key: foreign.Key}, "is not signed by the CA"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tlsconf.Load(tt.files)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// handshake runs a TLS handshake over loopback TCP (a net.Pipe has no
// buffer, and an alert written by one side would block) and returns the
// server's and the client's errors.
func handshake(t *testing.T, server, client *tls.Config) (serr, cerr error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	done := make(chan error, 1)
	go func() {
		conn, err := lis.Accept()
		if err != nil {
			done <- err
			return
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(time.Minute))
		s := tls.Server(conn, server)
		err = s.Handshake()
		if err == nil {
			// TLS 1.3 checks the client's certificate after the client's
			// handshake returns: read the client's first record.
			_, err = s.Read(make([]byte, 1))
		}
		done <- err
	}()
	conn, err := net.Dial("tcp", lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(time.Minute))
	c := tls.Client(conn, client)
	cerr = c.Handshake()
	if cerr == nil {
		_, cerr = c.Write([]byte{1})
	}
	serr = <-done
	conn.Close()
	return serr, cerr
}

// TestMutualTLS checks who may talk to whom: a peer needs a certificate
// from the cluster CA, of a role the other end allows.
func TestMutualTLS(t *testing.T) {
	dir, other := initDir(t, "localhost", "127.0.0.1"), initDir(t, "localhost")
	sched, tm, cli := load(t, dir, tlsconf.Scheduler), load(t, dir, tlsconf.TaskManager), load(t, dir, tlsconf.Client)
	foreignTM := load(t, other, tlsconf.TaskManager)
	noCert := &tls.Config{RootCAs: sched.Client().RootCAs, ServerName: "localhost"}
	named := func(c *tls.Config) *tls.Config { c.ServerName = "localhost"; return c }
	for _, tt := range []struct {
		name           string
		server, client *tls.Config
		ok             bool
	}{
		{"task manager to scheduler", sched.Server(false, tlsconf.TaskManager, tlsconf.Client), named(tm.Client(tlsconf.Scheduler)), true},
		{"scheduler to task manager", tm.Server(false, tlsconf.Scheduler, tlsconf.TaskManager), named(sched.Client(tlsconf.TaskManager)), true},
		{"client to scheduler", sched.Server(false, tlsconf.TaskManager, tlsconf.Client), named(cli.Client(tlsconf.Scheduler)), true},
		{"client posing as a task manager", sched.Server(false, tlsconf.TaskManager), named(cli.Client(tlsconf.Scheduler)), false},
		{"no client certificate", sched.Server(false), noCert, false},
		{"no client certificate, optional", sched.Server(true), noCert, true},
		{"certificate of another CA", sched.Server(false), func() *tls.Config {
			// An attacker knows the cluster's CA certificate, not its key.
			c := named(foreignTM.Client())
			c.RootCAs = sched.Client().RootCAs
			return c
		}(), false},
		{"server of the wrong role", tm.Server(false), named(cli.Client(tlsconf.Scheduler)), false},
		{"wrong host name", sched.Server(false), func() *tls.Config { c := tm.Client(); c.ServerName = "evil.example"; return c }(), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			serr, cerr := handshake(t, tt.server, tt.client)
			if ok := serr == nil && cerr == nil; ok != tt.ok {
				t.Errorf("connected %v, want %v (server: %v; client: %v)", ok, tt.ok, serr, cerr)
			}
			if !tt.ok {
				t.Logf("refused: server: %v; client: %v", serr, cerr)
			}
		})
	}
}
