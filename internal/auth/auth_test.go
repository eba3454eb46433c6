package auth_test

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/auth"
)

// hashOf is the hash field of a user with token tok.
func hashOf(tok string) string {
	f := strings.Fields(auth.Line(auth.User{Name: "x", Role: auth.Viewer}, tok))
	return f[2]
}

func TestParse(t *testing.T) {
	h1, h2 := hashOf("one"), hashOf("two")
	tests := []struct {
		name, file string
		// err is a substring of the error, or empty for success.
		err   string
		users int
	}{
		{"empty", "", "", 0},
		{"comments and blanks", "# users\n\n  \n# more\n", "", 0},
		{"two users", "alice operator " + h1 + "\n\tbob\tviewer\t" + h2, "", 2},
		{"admin", "root admin " + h1, "", 1},
		{"two fields", "alice operator", "line 1: want NAME ROLE sha256:HEX, got 2 fields", 0},
		{"four fields", "alice operator " + h1 + " extra", "got 4 fields", 0},
		{"unknown role", "# c\nalice root " + h1, `line 2: user "alice": unknown role "root": want viewer, operator or admin`, 0},
		{"anyone is not a user role", "alice anyone " + h1, `unknown role "anyone"`, 0},
		{"bad name", "al/ice viewer " + h1, `user name "al/ice"`, 0},
		{"long name", strings.Repeat("a", 65) + " viewer " + h1, "1 to 64", 0},
		{"no prefix", "alice viewer " + strings.TrimPrefix(h1, "sha256:"), "want the token's hash as sha256: and 64 hex digits", 0},
		{"short hash", "alice viewer sha256:abcd", "64 hex digits", 0},
		{"not hex", "alice viewer sha256:" + strings.Repeat("z", 64), "the token's hash", 0},
		{"repeated name", "alice viewer " + h1 + "\nalice admin " + h2, `line 2: user "alice" is also on line 1`, 0},
		{"repeated token", "alice viewer " + h1 + "\nbob admin " + h1, `line 2: user "bob" has the same token as "alice"`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toks, err := auth.Parse(strings.NewReader(tt.file))
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Parse: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("Parse: error %v, want one containing %q", err, tt.err)
			case tt.err == "" && toks.Len() != tt.users:
				t.Errorf("%d users, want %d", toks.Len(), tt.users)
			}
		})
	}
}

func TestAuthenticate(t *testing.T) {
	file := "alice operator " + hashOf("floe_alice") + "\nbob viewer " + hashOf("floe_bob") + "\n"
	toks, err := auth.Parse(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		token string
		want  auth.User
		ok    bool
	}{
		{"floe_alice", auth.User{Name: "alice", Role: auth.Operator}, true},
		{"floe_bob", auth.User{Name: "bob", Role: auth.Viewer}, true},
		{"floe_carol", auth.User{}, false},
		{"floe_alice ", auth.User{}, false},
		{"", auth.User{}, false},
		{hashOf("floe_alice"), auth.User{}, false}, // the hash is not the token
	}
	for _, tt := range tests {
		got, ok := toks.Authenticate(tt.token)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Authenticate(%q) = %v, %v; want %v, %v", tt.token, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRoleAllows(t *testing.T) {
	tests := []struct {
		have, need auth.Role
		want       bool
	}{
		{auth.Viewer, auth.Anyone, true},
		{auth.Viewer, auth.Viewer, true},
		{auth.Viewer, auth.Operator, false},
		{auth.Operator, auth.Viewer, true},
		{auth.Operator, auth.Operator, true},
		{auth.Operator, auth.Admin, false},
		{auth.Admin, auth.Admin, true},
		{auth.Admin, 0, false}, // a route without a role is refused to all
		{0, auth.Viewer, false},
	}
	for _, tt := range tests {
		if got := tt.have.Allows(tt.need); got != tt.want {
			t.Errorf("%v.Allows(%v) = %v, want %v", tt.have, tt.need, got, tt.want)
		}
	}
}

func TestNewToken(t *testing.T) {
	a, err := auth.NewToken(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := auth.NewToken(rand.Reader)
	if a == b || !strings.HasPrefix(a, "floe_") || len(a) != len("floe_")+43 {
		t.Errorf("tokens %q and %q: want two different floe_ and 43 base64url characters", a, b)
	}
	if _, err := auth.NewToken(bytes.NewReader(make([]byte, 31))); err == nil {
		t.Error("NewToken with 31 random bytes succeeded")
	}
}

func TestAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens")
	alice, err := auth.Append(path, auth.User{Name: "alice", Role: auth.Operator}, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("a new token file has mode %v, want 0600", fi.Mode().Perm())
	}
	// A file edited by hand may lack the last newline.
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, bytes.TrimSuffix(data, []byte("\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	bob, err := auth.Append(path, auth.User{Name: "bob", Role: auth.Viewer}, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if bytes.Contains(data, []byte(alice)) || bytes.Contains(data, []byte(bob)) {
		t.Errorf("the token file holds a token itself:\n%s", data)
	}
	toks, err := auth.Load(path)
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, data)
	}
	for tok, want := range map[string]auth.User{alice: {Name: "alice", Role: auth.Operator}, bob: {Name: "bob", Role: auth.Viewer}} {
		if got, ok := toks.Authenticate(tok); !ok || got != want {
			t.Errorf("Authenticate(token of %s) = %v, %v", want.Name, got, ok)
		}
	}

	tests := []struct {
		name string
		user auth.User
		err  string
	}{
		{"taken name", auth.User{Name: "alice", Role: auth.Admin}, `already has a user "alice"`},
		{"bad name", auth.User{Name: "", Role: auth.Admin}, `user name ""`},
		{"no role", auth.User{Name: "carol"}, "want viewer, operator or admin"},
		{"anyone", auth.User{Name: "carol", Role: auth.Anyone}, "want viewer, operator or admin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := auth.Append(path, tt.user, rand.Reader); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Append: error %v, want one containing %q", err, tt.err)
			}
		})
	}
	if err := os.WriteFile(path, []byte("garbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Append(path, auth.User{Name: "carol", Role: auth.Viewer}, rand.Reader); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("Append to a broken file: error %v, want one naming line 1", err)
	}
}
