package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/floe-stream/floe/internal/tlsconf"
	"github.com/spf13/pflag"
)

// tlsUsage is what floe scheduler and floe taskmanager say of TLS.
const tlsUsage = `With --tls-dir (or --tls-ca, --tls-cert and --tls-key) every connection runs
mutual TLS, and the REST API HTTPS (docs/security.md). Without them, an address
other than loopback is refused unless --insecure is given.
`

// tlsFlags are the TLS flags of floe scheduler, taskmanager and run: one
// identity for every connection of the process (docs/security.md).
type tlsFlags struct {
	dir, ca, cert, key string
	// insecure allows plaintext on an address other machines reach; nil
	// for a command without the flag (floe run binds loopback only).
	insecure *bool
}

// addTLSFlags registers the TLS flags on fs, and --insecure when
// withInsecure.
func addTLSFlags(fs *pflag.FlagSet, withInsecure bool) *tlsFlags {
	f := &tlsFlags{}
	fs.StringVar(&f.dir, "tls-dir", "", "`DIR` holding ca.pem, cert.pem and key.pem (as `floe certs init` writes them): serve and dial every connection with mutual TLS; plaintext when no TLS flag is given")
	fs.StringVar(&f.ca, "tls-ca", "", "the cluster CA's certificate `FILE` (with --tls-cert and --tls-key, instead of --tls-dir)")
	fs.StringVar(&f.cert, "tls-cert", "", "this process's certificate `FILE` (with --tls-key and --tls-ca, instead of --tls-dir)")
	fs.StringVar(&f.key, "tls-key", "", "this process's private key `FILE` (with --tls-cert and --tls-ca, instead of --tls-dir)")
	if withInsecure {
		f.insecure = fs.Bool("insecure", false, "allow plaintext connections on an address that is not loopback (without TLS flags such an address is refused)")
	}
	return f
}

// load returns the process's TLS identity, or nil when no TLS flag is
// given.
func (f *tlsFlags) load() (*tlsconf.Config, error) {
	files := tlsconf.Files{CA: f.ca, Cert: f.cert, Key: f.key}
	switch {
	case f.dir != "" && !files.Empty():
		return nil, errors.New("--tls-dir, or --tls-ca, --tls-cert and --tls-key: not both")
	case f.dir != "":
		files = tlsconf.Dir(f.dir)
	case files.Empty():
		return nil, nil
	}
	c, err := tlsconf.Load(files)
	if f.dir != "" && errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--tls-dir %s: %w (`floe certs init DIR` writes a directory per role: give DIR/scheduler, DIR/taskmanager or DIR/client)", f.dir, err)
	}
	return c, err
}

// listenAddr is an address a process listens on, and the flag that set it.
type listenAddr struct{ flag, addr string }

// checkBind refuses plaintext on an address other machines can reach
// unless --insecure is given, and then warns. Empty addresses are skipped.
func (f *tlsFlags) checkBind(c *tlsconf.Config, log *slog.Logger, addrs ...listenAddr) error {
	if c != nil {
		return nil
	}
	for _, a := range addrs {
		if a.addr == "" || tlsconf.Loopback(a.addr) {
			continue
		}
		if f.insecure == nil || !*f.insecure {
			return fmt.Errorf("--%s %s is not a loopback address, and the connections are not encrypted: give --tls-dir (or --tls-ca, --tls-cert and --tls-key) to serve with TLS, or --insecure to serve plaintext anyway", a.flag, a.addr)
		}
		log.Warn("serving plaintext on an address other machines may reach (--insecure): anyone who reaches it can join or drive the cluster", "flag", "--"+a.flag, "addr", a.addr)
	}
	return nil
}

// clientTLSFlags are the TLS flags of the commands that talk to the REST
// API (floe job, state, cluster).
type clientTLSFlags struct{ ca, cert, key string }

func addClientTLSFlags(fs *pflag.FlagSet) *clientTLSFlags {
	f := &clientTLSFlags{}
	fs.StringVar(&f.ca, "tls-ca", os.Getenv("FLOE_TLS_CA"), "the cluster CA's certificate `FILE`, to check an https:// scheduler's certificate against; $FLOE_TLS_CA sets the default")
	fs.StringVar(&f.cert, "tls-cert", "", "a client certificate `FILE` to present to the scheduler (with --tls-key and --tls-ca); none by default")
	fs.StringVar(&f.key, "tls-key", "", "the private key `FILE` of --tls-cert")
	return f
}

// httpClient returns the HTTP client of the REST API: nil (the client
// package's default) without --tls-ca, else one that trusts only the
// cluster CA and, with --tls-cert, presents a certificate.
func (f *clientTLSFlags) httpClient() (*http.Client, error) {
	if f.ca == "" && f.cert == "" && f.key == "" {
		return nil, nil
	}
	cfg, err := tlsconf.LoadClient(tlsconf.Files{CA: f.ca, Cert: f.cert, Key: f.key})
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	tr.TLSClientConfig = cfg
	return &http.Client{Transport: tr}, nil
}

// restScheme is the scheme of a scheduler's REST address.
func restScheme(c *tlsconf.Config) string {
	if c != nil {
		return "https"
	}
	return "http"
}
