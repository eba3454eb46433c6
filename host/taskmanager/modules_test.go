package taskmanager

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A digest names a file under the data directory: a forged deployment
// whose digest is a path must not run a module from elsewhere (issue 16).
func TestModuleDigestsMustBeSHA256(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside.wasm")
	if err := os.WriteFile(outside, []byte("\x00asm\x01\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	// No engine and no scheduler: a digest that passed the check would
	// reach one of them and panic.
	m := newModules(nil, nil, filepath.Join(dir, "artifacts"))
	for _, d := range []string{
		"../outside",
		"../../etc/passwd",
		strings.Repeat("A", 64),
		strings.Repeat("0", 63),
		strings.Repeat("0", 64) + "/../../outside",
		"",
	} {
		if p, err := m.path(context.Background(), d); err == nil || !strings.Contains(err.Error(), "not a SHA-256") {
			t.Errorf("path(%q) = %q, %v; want a refusal", d, p, err)
		}
		if _, err := m.module(context.Background(), "op", d); err == nil || !strings.Contains(err.Error(), "not a SHA-256") {
			t.Errorf("module(%q) = %v; want a refusal", d, err)
		}
	}
}
