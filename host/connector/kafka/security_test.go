package kafka

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
)

// TestSASL reads and writes through a cluster that demands SCRAM.
func TestSASL(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "floe", "secret"),
		kfake.SeedTopics(1, "topic"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sec := Security{SASL: &SASL{Mechanism: "SCRAM-SHA-256", Username: "floe", Password: "secret"}}
	out, err := OpenSink(SinkConfig{Brokers: c.ListenAddrs(), Topic: "topic", Security: sec}, splitOf(0, 1), false, false)
	must(t, err)
	must(t, out.Write(batch("hello")))
	must(t, out.Close())

	cfg := SourceConfig{Brokers: c.ListenAddrs(), Topics: []string{"topic"}, Security: sec}
	in := open(t, cfg, 0, 1)
	if got := flat(readAll(t, []*source{in}, 1)); len(got) != 1 || got[0] != "hello" {
		t.Fatalf("read %q, want hello", got)
	}

}

// TestFatalErrors checks which listing errors fail a source: those that
// Kafka says retrying does not cure. (kfake closes the connection on a
// failed SASL handshake, where Kafka answers SASL_AUTHENTICATION_FAILED,
// so a wrong password cannot be tested end to end against it.)
func TestFatalErrors(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{kerr.SaslAuthenticationFailed, true},
		{fmt.Errorf("listing: %w", kerr.TopicAuthorizationFailed), true},
		{kerr.NotLeaderForPartition, false},
		{io.EOF, false},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, false},
	} {
		if got := fatal(tt.err); got != tt.want {
			t.Errorf("fatal(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// TestTLS reads and writes through a cluster that serves TLS only, trusting
// its certificate through a CA file.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	server, caFile := selfSigned(t, dir)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.TLS(server), kfake.SeedTopics(1, "topic"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sec := Security{TLS: &TLS{CAFile: caFile}}
	out, err := OpenSink(SinkConfig{Brokers: c.ListenAddrs(), Topic: "topic", Security: sec}, splitOf(0, 1), false, false)
	must(t, err)
	must(t, out.Write(batch("secret")))
	must(t, out.Close())
	in := open(t, SourceConfig{Brokers: c.ListenAddrs(), Topics: []string{"topic"}, Security: sec}, 0, 1)
	if got := flat(readAll(t, []*source{in}, 1)); len(got) != 1 || got[0] != "secret" {
		t.Fatalf("read %q, want secret", got)
	}
	if _, err := OpenSource(SourceConfig{Brokers: c.ListenAddrs(), Topics: []string{"topic"},
		Security: Security{TLS: &TLS{CAFile: filepath.Join(dir, "missing.pem")}}}, splitOf(0, 1)); err == nil {
		t.Error("a missing CA file was accepted")
	}
}

// selfSigned returns the TLS config of a server with a self-signed
// certificate for 127.0.0.1, and the path of that certificate in PEM.
func selfSigned(t *testing.T, dir string) (*tls.Config, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kfake"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	must(t, err)
	caFile := filepath.Join(dir, "ca.pem")
	must(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12}, caFile
}
