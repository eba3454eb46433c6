package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler"
)

// createToken runs floe token create and returns the token it prints.
func createToken(t *testing.T, file, name, role string) string {
	t.Helper()
	r := runFloe("token", "create", name, "--role", role, "--file", file)
	token := strings.TrimSpace(r.stdout)
	if r.code != 0 || !strings.HasPrefix(token, "floe_") || strings.Contains(token, "\n") {
		t.Fatalf("floe token create %s: %+v", name, r)
	}
	return token
}

func TestTokenCreate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	token := createToken(t, file, "alice", "operator")
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if fi.Mode().Perm() != 0o600 || strings.Contains(string(data), token) || !strings.Contains(string(data), "alice operator sha256:") {
		t.Errorf("token file with mode %v:\n%s", fi.Mode().Perm(), data)
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"create", "alice", "--role", "viewer", "--file", file}, 1, `already has a user "alice"`},
		{[]string{"create", "bob", "--role", "root", "--file", file}, 2, `unknown role "root"`},
		{[]string{"create", "bob", "--file", file}, 2, "--role is required"},
		{[]string{"create", "bob", "--role", "viewer"}, 2, "--file is required"},
		{[]string{"create", "--role", "viewer", "--file", file}, 2, "missing NAME"},
		{[]string{"create", "b/ob", "--role", "viewer", "--file", file}, 2, `user name "b/ob"`},
		{[]string{"make", "bob"}, 2, `unknown command "make" for "floe token"`},
	}
	for _, tt := range tests {
		r := runFloe(append([]string{"token"}, tt.args...)...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
			t.Errorf("floe token %q: %+v, want code %d and %q", tt.args, r, tt.code, tt.want)
		}
	}
	if r := runFloe("help", "token"); r.code != 0 || !strings.Contains(r.stdout, "floe token create NAME") {
		t.Errorf("floe help token: %+v", r)
	}
}

// TestTokensAgainstScheduler makes tokens with floe token create and uses
// them with floe job against a scheduler that reads the token file.
func TestTokensAgainstScheduler(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	viewer := createToken(t, file, "vic", "viewer")
	operator := createToken(t, file, "olga", "operator")
	s, err := scheduler.NewServer(scheduler.Config{RPCAddr: "127.0.0.1:0", RESTAddr: "127.0.0.1:0", DataDir: t.TempDir(), AuthTokens: file})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("scheduler: %v", err)
		}
	})
	server := "http://" + s.RESTAddr()

	tests := []struct {
		name, env string
		args      []string
		code      int
		want      string
	}{
		{"no token", "", []string{"job", "list"}, 1, "set FLOE_TOKEN (or --token)"},
		{"unknown token", "floe_nobody", []string{"job", "list"}, 1, "the token in FLOE_TOKEN is not one of this scheduler's users"},
		{"unknown --token", viewer, []string{"job", "list", "--token", "floe_nobody"}, 1, "the token in --token is not one"},
		{"viewer lists", viewer, []string{"job", "list"}, 0, ""},
		{"viewer reads the group", viewer, []string{"cluster", "status"}, 0, ""},
		{"viewer cannot cancel", viewer, []string{"job", "cancel", "nope"}, 1, "token vic has role viewer; DELETE /v1/jobs/{id} needs operator"},
		{"operator cancels", "", []string{"job", "cancel", "nope", "--token", operator}, 1, `no job "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("FLOE_TOKEN", tt.env)
			r := runFloe(append(tt.args, "--server", server)...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("floe %q with FLOE_TOKEN %q: %+v, want code %d and %q", tt.args, tt.env, r, tt.code, tt.want)
			}
		})
	}
}

// TestSchedulerAuthFlags checks that floe scheduler refuses to start on a
// token file it cannot parse and on an empty --ha-token-file.
func TestSchedulerAuthFlags(t *testing.T) {
	dir := t.TempDir()
	broken, empty := filepath.Join(dir, "broken"), filepath.Join(dir, "empty")
	os.WriteFile(broken, []byte("alice operator\n"), 0o600)
	os.WriteFile(empty, []byte("\n"), 0o600)
	base := []string{"scheduler", "--rest-addr", "127.0.0.1:0", "--rpc-addr", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data")}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--auth-tokens", broken}, 1, "token file " + broken + ": line 1: want NAME ROLE sha256:HEX"},
		{[]string{"--auth-tokens", filepath.Join(dir, "missing")}, 1, "no such file"},
		{[]string{"--ha-token-file", empty}, 2, "holds no token"},
	}
	for _, tt := range tests {
		r := runFloe(append(base, tt.args...)...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("floe scheduler %q: %+v, want code %d and %q", tt.args, r, tt.code, tt.want)
		}
	}
}
