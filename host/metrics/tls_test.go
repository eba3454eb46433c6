package metrics

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/floe-stream/floe/internal/tlsconf"
)

// TestServesHTTPSWithTheClusterIdentity checks that a task manager running
// TLS serves its metrics over HTTPS: a scraper trusting the cluster CA
// reads them without a certificate of its own, and plain HTTP gets none.
func TestServesHTTPSWithTheClusterIdentity(t *testing.T) {
	dir := t.TempDir()
	if _, err := tlsconf.Init(dir, tlsconf.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	tm, err := tlsconf.Load(tlsconf.Dir(filepath.Join(dir, "taskmanager")))
	if err != nil {
		t.Fatal(err)
	}
	addr := serveTLS(t, New(Config{}), tm.Server(true))
	ca, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost"}, DisableKeepAlives: true}
	resp, err := (&http.Client{Transport: tr}).Get("https://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("scraping over HTTPS with the cluster CA: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scraping over HTTPS: %s", resp.Status)
	}
	plain := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := plain.Get("http://" + addr + "/metrics"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("plain HTTP got the metrics of a server running TLS")
		}
	}
}
