package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
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

// TestPrintHistoryDropped checks that a status says how many entries of a
// trimmed history the scheduler dropped.
func TestPrintHistoryDropped(t *testing.T) {
	var b bytes.Buffer
	printHistory(&b, []api.Event{{State: api.JobRestarting, Message: "restart 1500"}}, 1499)
	want := "\nHistory:\n  (1499 older entries dropped)\n  " + formatTime(time.Time{}) + "  RESTARTING: restart 1500\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
