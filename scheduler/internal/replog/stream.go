package replog

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/floe-stream/floe/internal/tlsconf"
)

// tcpStream is raft's TCP stream layer with one difference: Close also
// closes the connections it accepted. NB: raft's own TCP transport leaves
// them open, so a closed member's handlers of its peers' connections would
// live on until each peer hung up; with this one, closing a member takes it
// off the network at once, as the death of its process would. With TLS,
// every connection, dialed or accepted, is mutual TLS between schedulers.
type tcpStream struct {
	ln *net.TCPListener
	// client and server are the TLS configurations of dialed and accepted
	// connections; nil is plaintext.
	client, server *tls.Config

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

var _ raft.StreamLayer = (*tcpStream)(nil)

// listenTCP listens on bind, which must name a host that others can dial;
// a nil c is plaintext.
func listenTCP(bind string, c *tlsconf.Config) (*tcpStream, error) {
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, err
	}
	tl := ln.(*net.TCPListener)
	if a := tl.Addr().(*net.TCPAddr); a.IP.IsUnspecified() {
		ln.Close()
		return nil, fmt.Errorf("%s is not an address that other members can dial", bind)
	}
	s := &tcpStream{ln: tl, conns: map[net.Conn]struct{}{}}
	if c != nil {
		s.client, s.server = c.Client(tlsconf.Scheduler), c.Server(false, tlsconf.Scheduler)
	}
	return s, nil
}

// Dial connects to another member; with TLS, the handshake is done, within
// timeout, by the time it returns.
func (s *tcpStream) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout}
	if s.client == nil {
		return d.Dial("tcp", string(addr))
	}
	return (&tls.Dialer{NetDialer: d, Config: s.client}).Dial("tcp", string(addr))
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
	if s.server != nil {
		// NB: the handshake happens on the first read, in raft's handler
		// of the connection, which drops it if the peer is refused.
		c = tls.Server(c, s.server)
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
