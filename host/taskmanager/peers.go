package taskmanager

import (
	"sync"

	"google.golang.org/grpc"

	"github.com/floe-stream/floe/internal/tlsconf"
)

// peers holds one client connection per other task manager, shared by every
// channel to it.
type peers struct {
	// creds dial a task manager, or a scheduler's process hosting task
	// managers (`floe run`).
	creds grpc.DialOption
	mu    sync.Mutex
	conns map[string]*grpc.ClientConn
}

// newPeers dials with c, or in plaintext when c is nil.
func newPeers(c *tlsconf.Config) *peers {
	return &peers{creds: c.DialOption(tlsconf.TaskManager, tlsconf.Scheduler), conns: map[string]*grpc.ClientConn{}}
}

func (p *peers) conn(addr string) (*grpc.ClientConn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.conns[addr]; ok {
		return c, nil
	}
	c, err := grpc.NewClient(addr, p.creds)
	if err != nil {
		return nil, err
	}
	p.conns[addr] = c
	return c, nil
}

func (p *peers) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = map[string]*grpc.ClientConn{}
}
