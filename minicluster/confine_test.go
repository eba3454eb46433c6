package minicluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
)

// TestConfinedJobRuns runs a job with checkpoints that stays inside the
// cluster's allowed paths to its end: the task managers, which check the
// job again, accept the cluster's own checkpoint storage, outside those
// paths, since the scheduler sends jobs there.
func TestConfinedJobRuns(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "in.txt"), []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := "name: copy\nsource: {type: file, uid: src, path: " + filepath.Join(data, "in.txt") + "}\n" +
		"sink: {type: file, uid: out, path: " + filepath.Join(data, "out") + "}\ncheckpoints: {interval: 100ms}\nrestartStrategy: {type: none}\n"
	st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "cluster"), AllowedPaths: []string{data}}, api.Submission{Spec: []byte(spec)})
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	parts, err := filepath.Glob(filepath.Join(data, "out", "part-*"))
	if err != nil || len(parts) == 0 {
		t.Fatalf("no part files (%v)", err)
	}
	var lines []string
	for _, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Fields(string(b))...)
	}
	if len(lines) != 3 {
		t.Errorf("output lines %q, want a, b and c", lines)
	}
}
