package main

import (
	"bytes"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/tlsconf"

	"github.com/spf13/pflag"
)

// TestTLSFlags checks how the TLS flags load and what they allow a process
// to bind: plaintext only on loopback, unless --insecure, which warns.
func TestTLSFlags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	if _, err := tlsconf.Init(dir, tlsconf.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	sched := tlsconf.Dir(filepath.Join(dir, "scheduler"))
	for _, tt := range []struct {
		name string
		args []string
		addr string
		err  string // "" for no error
		warn bool
	}{
		{"plaintext on loopback", nil, "127.0.0.1:6123", "", false},
		{"plaintext on every interface", nil, ":6123", "--rpc-addr :6123 is not a loopback address", false},
		{"plaintext on a LAN address", nil, "10.1.2.3:6123", "or --insecure", false},
		{"plaintext allowed by --insecure", []string{"--insecure"}, "0.0.0.0:6123", "", true},
		{"TLS from a directory", []string{"--tls-dir", filepath.Join(dir, "scheduler")}, "0.0.0.0:6123", "", false},
		{"TLS from three files", []string{"--tls-ca", sched.CA, "--tls-cert", sched.Cert, "--tls-key", sched.Key}, "0.0.0.0:6123", "", false},
		{"TLS from a directory and files", []string{"--tls-dir", dir, "--tls-ca", sched.CA}, "127.0.0.1:0", "not both", false},
		{"TLS without a key", []string{"--tls-ca", sched.CA, "--tls-cert", sched.Cert}, "127.0.0.1:0", "need a CA, a certificate and a key", false},
		{"TLS from a directory without certificates", []string{"--tls-dir", dir}, "127.0.0.1:0", "a directory per role", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f := addTLSFlags(fs, true)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			var logged bytes.Buffer
			c, err := f.load()
			if err == nil {
				err = f.checkBind(c, slog.New(slog.NewTextHandler(&logged, nil)), listenAddr{"rpc-addr", tt.addr})
			}
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("error %v, want one with %q", err, tt.err)
			}
			if warned := strings.Contains(logged.String(), "level=WARN"); warned != tt.warn {
				t.Errorf("warned %v, want %v: %q", warned, tt.warn, logged.String())
			}
		})
	}
}
