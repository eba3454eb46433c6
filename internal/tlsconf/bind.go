package tlsconf

import (
	"net"
	"net/netip"
)

// Loopback reports whether addr, a HOST:PORT to listen on, binds loopback
// interfaces only: localhost or a loopback IP. An empty host (every
// interface), an unspecified address and any other name bind, or may bind,
// an interface other machines reach. A malformed addr is not loopback.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
