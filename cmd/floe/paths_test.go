package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestAllowedPaths(t *testing.T) {
	tests := []struct {
		flag      string
		protected bool
		want      []string
	}{
		{"", false, nil},
		{"", true, []string{"/var/floe"}},
		{"/a, /b", false, []string{"/a", "/b"}},
		{"/a", true, []string{"/a"}},
	}
	for _, tt := range tests {
		if got := allowedPaths(tt.flag, tt.protected, "/var/floe"); !slices.Equal(got, tt.want) {
			t.Errorf("allowedPaths(%q, %v) = %q, want %q", tt.flag, tt.protected, got, tt.want)
		}
	}
}

// TestRunAllowedPaths runs a job that reads /etc/shadow on a local
// mini-cluster with --allowed-paths: it is refused before it runs, with a
// message naming the field and the path.
func TestRunAllowedPaths(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "job.yaml")
	yaml := "name: peek\nsource: {type: file, uid: src, path: /etc/shadow}\nsink: {type: file, uid: out, path: " + filepath.Join(dir, "out") + "}\n"
	if err := os.WriteFile(spec, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := floe([]string{"run", spec, "--allowed-paths", dir, "--data-dir", filepath.Join(dir, "data"), "--progress", "0"}, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), `source.path: "/etc/shadow" is outside the allowed paths (`+dir+`)`) {
		t.Errorf("floe run = %d, stderr:\n%s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("the refused job's sink directory exists (%v)", err)
	}
}
