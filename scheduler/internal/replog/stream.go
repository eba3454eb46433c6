package replog

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// tcpStream is raft's TCP stream layer with one difference: Close also
// closes the connections it accepted. NB: raft's own TCP transport leaves
// them open, so a closed member's handlers of its peers' connections would
// live on until each peer hung up; with this one, closing a member takes it
// off the network at once, as the death of its process would.
type tcpStream struct {
	ln *net.TCPListener

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

var _ raft.StreamLayer = (*tcpStream)(nil)

// listenTCP listens on bind, which must name a host that others can dial.
func listenTCP(bind string) (*tcpStream, error) {
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, err
	}
	tl := ln.(*net.TCPListener)
	if a := tl.Addr().(*net.TCPAddr); a.IP.IsUnspecified() {
		ln.Close()
		return nil, fmt.Errorf("%s is not an address that other members can dial", bind)
	}
	return &tcpStream{ln: tl, conns: map[net.Conn]struct{}{}}, nil
}

func (s *tcpStream) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("tcp", string(addr), timeout)
}

func (s *tcpStream) Accept() (net.Conn, error) {
	c, err := s.ln.Accept()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return nil, net.ErrClosed
	}
	tc := &trackedConn{Conn: c, s: s}
	s.conns[tc] = struct{}{}
	return tc, nil
}

func (s *tcpStream) Close() error {
	s.mu.Lock()
	s.closed = true
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	errs := []error{s.ln.Close()}
	for c := range conns {
		errs = append(errs, c.(*trackedConn).Conn.Close())
	}
	return errors.Join(errs...)
}

func (s *tcpStream) Addr() net.Addr { return s.ln.Addr() }

// trackedConn forgets itself in its stream when closed.
type trackedConn struct {
	net.Conn
	s *tcpStream
}

func (c *trackedConn) Close() error {
	c.s.mu.Lock()
	delete(c.s.conns, c)
	c.s.mu.Unlock()
	return c.Conn.Close()
}
