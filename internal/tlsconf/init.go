package tlsconf

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// InitOptions configures Init.
type InitOptions struct {
	// Hosts are the DNS names and IP addresses the scheduler's and task
	// managers' certificates are valid for; empty means localhost,
	// 127.0.0.1 and ::1.
	Hosts []string
	// Validity is how long the role certificates are valid; zero means a
	// year. The CA is valid ten times as long.
	Validity time.Duration
	// Now is the start of validity; zero means time.Now.
	Now time.Time
}

// Init writes a development CA and one certificate per role into dir:
// dir/ca.pem and dir/ca-key.pem, and for each role a directory a process
// can take as its --tls-dir (dir/scheduler, dir/taskmanager, dir/client,
// each with ca.pem, cert.pem and key.pem). It refuses to overwrite any of
// them. It returns the paths it wrote.
func Init(dir string, opts InitOptions) ([]string, error) {
	if len(opts.Hosts) == 0 {
		opts.Hosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	if opts.Validity <= 0 {
		opts.Validity = 365 * 24 * time.Hour
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	files := []string{filepath.Join(dir, "ca.pem"), filepath.Join(dir, "ca-key.pem")}
	for _, r := range Roles {
		f := Dir(filepath.Join(dir, string(r)))
		files = append(files, f.CA, f.Cert, f.Key)
	}
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			return nil, fmt.Errorf("%s already exists; remove it or choose another directory", f)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}

	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{Organization: []string{"floe"}, CommonName: "floe development CA"},
		NotBefore:             opts.Now.Add(-time.Hour),
		NotAfter:              opts.Now.Add(10 * opts.Validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	caPEM := pemBlock("CERTIFICATE", caDER)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	caKeyDER, err := x509.MarshalECPrivateKey(caKey)
	if err != nil {
		return nil, err
	}
	if err := write(files[0], caPEM, 0o644); err != nil {
		return nil, err
	}
	if err := write(files[1], pemBlock("EC PRIVATE KEY", caKeyDER), 0o600); err != nil {
		return nil, err
	}
	for _, r := range Roles {
		certPEM, keyPEM, err := issue(ca, caKey, r, opts)
		if err != nil {
			return nil, err
		}
		f := Dir(filepath.Join(dir, string(r)))
		if err := os.MkdirAll(filepath.Dir(f.Cert), 0o755); err != nil {
			return nil, err
		}
		if err := write(f.CA, caPEM, 0o644); err != nil {
			return nil, err
		}
		if err := write(f.Cert, certPEM, 0o644); err != nil {
			return nil, err
		}
		if err := write(f.Key, keyPEM, 0o600); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// issue signs a certificate for role. Scheduler and task manager
// certificates serve and dial (both ends of the cluster's calls), for
// opts.Hosts; a client certificate only dials.
func issue(ca *x509.Certificate, caKey *ecdsa.PrivateKey, r Role, opts InitOptions) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{Organization: []string{"floe"}, OrganizationalUnit: []string{rolePrefix + string(r)}, CommonName: "floe " + string(r)},
		NotBefore:    opts.Now.Add(-time.Hour),
		NotAfter:     opts.Now.Add(opts.Validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if r != Client {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
		for _, h := range opts.Hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pemBlock("CERTIFICATE", der), pemBlock("EC PRIVATE KEY", keyDER), nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func write(path string, data []byte, perm os.FileMode) error {
	return os.WriteFile(path, data, perm)
}
