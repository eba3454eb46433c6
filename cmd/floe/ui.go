package main

import (
	"net"
	"strconv"
	"strings"
)

// defaultUIAddr is where floe run --ui serves the dashboard: loopback, on
// the port floe scheduler serves its REST API on.
const defaultUIAddr = "127.0.0.1:8081"

// uiFlag is floe run's --ui: off, or on with the address to serve the REST
// API and the dashboard on. Its value is optional (pflag's NoOptDefVal), so
// "--ui" alone turns it on at defaultUIAddr, and "--ui=ADDR" picks the
// address; uiArgs rewrites "--ui ADDR" to the latter.
type uiFlag struct {
	addr string
}

func (u *uiFlag) String() string { return u.addr }
func (u *uiFlag) Type() string   { return "HOST:PORT" }

// Set takes "true" (the flag alone), "false", or an address.
func (u *uiFlag) Set(v string) error {
	switch b, err := strconv.ParseBool(v); {
	case err != nil:
		u.addr = v
	case b:
		u.addr = defaultUIAddr
	default:
		u.addr = ""
	}
	return nil
}

// uiArgs returns args with a "--ui" followed by a HOST:PORT
// argument joined into "--ui=HOST:PORT", since pflag lets a flag with an
// optional value take it only after "=".
func uiArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--ui" && i+1 < len(args) && isHostPort(args[i+1]) {
			a += "=" + args[i+1]
			i++
		}
		out = append(out, a)
	}
	return out
}

// isHostPort reports whether s is HOST:PORT with a numeric port (HOST may
// be empty), rather than a job spec's path.
func isHostPort(s string) bool {
	if strings.HasPrefix(s, "-") {
		return false
	}
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return false
	}
	_, err = strconv.ParseUint(port, 10, 16)
	return err == nil
}
