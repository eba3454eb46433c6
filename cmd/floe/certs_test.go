package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/tlsconf"
)

func TestCertsInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	var out, errOut bytes.Buffer
	if code := floe([]string{"certs", "init", dir, "--hosts", "sched.example,10.1.2.3"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, r := range tlsconf.Roles {
		c, err := tlsconf.Load(tlsconf.Dir(filepath.Join(dir, string(r))))
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		if c.Role() != r {
			t.Errorf("%s certificate has role %q", r, c.Role())
		}
	}
	if !strings.Contains(out.String(), "sched.example, 10.1.2.3") {
		t.Errorf("output does not name the hosts:\n%s", out.String())
	}
	errOut.Reset()
	if code := floe([]string{"certs", "init", dir}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "already exists") {
		t.Errorf("second init: exit %d, stderr %q; want 1 and a refusal to overwrite", code, errOut.String())
	}
}

func TestCertsUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"certs"}, 2, "Available Commands:"},
		{[]string{"certs", "make"}, 2, `unknown command "make" for "floe certs"`},
		{[]string{"certs", "init"}, 2, "missing DIR"},
		{[]string{"certs", "init", "a", "b"}, 2, `unexpected arguments ["b"]`},
		{[]string{"certs", "init", "a", "--hosts", ","}, 2, "--hosts names no host"},
	} {
		var out, errOut bytes.Buffer
		if code := floe(tt.args, &out, &errOut); code != tt.code || !strings.Contains(errOut.String(), tt.want) {
			t.Errorf("floe %v: exit %d, stderr %q; want %d and %q", tt.args, code, errOut.String(), tt.code, tt.want)
		}
	}
	var out, errOut bytes.Buffer
	if code := floe([]string{"help", "certs"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "floe certs init DIR") || errOut.Len() != 0 {
		t.Errorf("floe help certs: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
