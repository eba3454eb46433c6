package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Role is what a certificate allows its holder to be in a cluster.
type Role string

// The roles of a cluster's processes.
const (
	Scheduler   Role = "scheduler"
	TaskManager Role = "taskmanager"
	Client      Role = "client"
)

// Roles are every role, in the order Init writes them.
var Roles = []Role{Scheduler, TaskManager, Client}

// rolePrefix marks a role in a certificate's organizational units.
const rolePrefix = "floe-"

// Files names the PEM files of a process's TLS identity.
type Files struct {
	// CA holds the cluster CA's certificate, which peers' certificates
	// must chain to.
	CA string
	// Cert and Key are this process's certificate and private key.
	Cert, Key string
}

// Dir returns the files of a --tls-dir: DIR/ca.pem, DIR/cert.pem and
// DIR/key.pem.
func Dir(dir string) Files {
	return Files{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "cert.pem"), Key: filepath.Join(dir, "key.pem")}
}

// Empty reports whether no file is named: TLS is off.
func (f Files) Empty() bool { return f == Files{} }

// Config is a loaded TLS identity and the CA it trusts.
type Config struct {
	cert tls.Certificate
	leaf *x509.Certificate
	pool *x509.CertPool
}

// Load reads and checks a TLS identity. Every file must be named; the
// certificate must match its key and chain to the CA.
func Load(f Files) (*Config, error) {
	if f.CA == "" || f.Cert == "" || f.Key == "" {
		return nil, fmt.Errorf("tls: need a CA, a certificate and a key (--tls-dir DIR, or --tls-ca, --tls-cert and --tls-key together); got ca %q, cert %q, key %q", f.CA, f.Cert, f.Key)
	}
	pool, err := loadPool(f.CA)
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return nil, fmt.Errorf("tls: load %s and %s: %w", f.Cert, f.Key, err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("tls: parse %s: %w", f.Cert, err)
	}
	inter := x509.NewCertPool()
	for _, der := range cert.Certificate[1:] {
		if c, err := x509.ParseCertificate(der); err == nil {
			inter.AddCert(c)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		return nil, fmt.Errorf("tls: %s is not signed by the CA in %s: %w", f.Cert, f.CA, err)
	}
	return &Config{cert: cert, leaf: leaf, pool: pool}, nil
}

// Role returns the role written in this process's certificate, or "" when
// it names none.
func (c *Config) Role() Role { return RoleOf(c.leaf) }

// RoleOf returns the role written in a certificate, or "" when it names
// none.
func RoleOf(cert *x509.Certificate) Role {
	for _, ou := range cert.Subject.OrganizationalUnit {
		for _, r := range Roles {
			if ou == rolePrefix+string(r) {
				return r
			}
		}
	}
	return ""
}

// Server returns the configuration to serve with. Clients must present a
// certificate from the CA whose role is one of allowed (any role when
// allowed is empty); a server that also answers clients without
// certificates (the REST API with tokens) passes optional true, and the
// handler then checks the peer itself.
func (c *Config) Server(optional bool, allowed ...Role) *tls.Config {
	auth := tls.RequireAndVerifyClientCert
	if optional {
		auth = tls.VerifyClientCertIfGiven
	}
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{c.cert},
		ClientCAs:    c.pool,
		ClientAuth:   auth,
		VerifyPeerCertificate: func(_ [][]byte, chains [][]*x509.Certificate) error {
			return checkRole(chains, allowed)
		},
	}
}

// Client returns the configuration to dial a server with: it presents this
// process's certificate and accepts only a server certificate from the CA
// whose role is one of allowed (any when empty).
func (c *Config) Client(allowed ...Role) *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{c.cert},
		RootCAs:      c.pool,
		VerifyPeerCertificate: func(_ [][]byte, chains [][]*x509.Certificate) error {
			return checkRole(chains, allowed)
		},
	}
}

// checkRole checks the role of a verified peer; chains is empty when the
// peer sent no certificate (allowed only by an optional server).
func checkRole(chains [][]*x509.Certificate, allowed []Role) error {
	if len(chains) == 0 || len(allowed) == 0 {
		return nil
	}
	r := RoleOf(chains[0][0])
	if slices.Contains(allowed, r) {
		return nil
	}
	if r == "" {
		return errors.New("tls: the peer's certificate names no floe role")
	}
	return fmt.Errorf("tls: the peer's certificate is for a %s, not a %v", r, allowed)
}

// LoadClient returns the configuration of a command-line client of the
// REST API: it trusts the CA in f.CA (required) and accepts only a
// scheduler's certificate; it presents f.Cert and f.Key when both are
// named, and no certificate when neither is.
func LoadClient(f Files) (*tls.Config, error) {
	if f.CA == "" {
		return nil, errors.New("tls: need the CA's certificate to check the scheduler's (--tls-ca FILE or $FLOE_TLS_CA)")
	}
	if f.Cert != "" || f.Key != "" {
		c, err := Load(f)
		if err != nil {
			return nil, err
		}
		return c.Client(Scheduler), nil
	}
	pool, err := loadPool(f.CA)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		RootCAs:    pool,
		VerifyPeerCertificate: func(_ [][]byte, chains [][]*x509.Certificate) error {
			return checkRole(chains, []Role{Scheduler})
		},
	}, nil
}

// loadPool reads the CA's certificates from path.
func loadPool(path string) (*x509.CertPool, error) {
	caPEM, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tls: read CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("tls: %s holds no PEM certificate", path)
	}
	return pool, nil
}
