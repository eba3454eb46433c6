package replog

import (
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/floe-stream/floe/internal/tlsconf"
)

// TestStreamTLS connects Raft stream layers that run TLS: a member with a
// scheduler's certificate from the cluster CA gets through, one with a
// task manager's certificate, or with a scheduler's from another CA, is
// refused, and the accepting side reads nothing from it.
func TestStreamTLS(t *testing.T) {
	dir, other := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, d := range []string{dir, other} {
		if _, err := tlsconf.Init(d, tlsconf.InitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	load := func(d string, r tlsconf.Role) *tlsconf.Config {
		c, err := tlsconf.Load(tlsconf.Dir(filepath.Join(d, string(r))))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	server, err := listenTCP("127.0.0.1:0", load(dir, tlsconf.Scheduler))
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	for _, tt := range []struct {
		name string
		c    *tlsconf.Config
		ok   bool
	}{
		{"scheduler", load(dir, tlsconf.Scheduler), true},
		{"task manager", load(dir, tlsconf.TaskManager), false},
		{"scheduler of another CA", load(other, tlsconf.Scheduler), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client, err := listenTCP("127.0.0.1:0", tt.c)
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			accepted := make(chan error, 1)
			go func() {
				c, err := server.Accept()
				if err != nil {
					accepted <- err
					return
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(time.Minute))
				_, err = io.ReadFull(c, make([]byte, 1))
				accepted <- err
			}()
			c, derr := client.Dial(raft.ServerAddress(server.Addr().String()), time.Minute)
			if derr == nil {
				c.SetDeadline(time.Now().Add(time.Minute))
				_, derr = c.Write([]byte{1})
				defer c.Close()
			}
			aerr := <-accepted
			if ok := aerr == nil; ok != tt.ok {
				t.Errorf("the member read from the peer: %v, want %v (accept: %v; dial: %v)", ok, tt.ok, aerr, derr)
			}
		})
	}
}
