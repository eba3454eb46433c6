package scheduler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
)

// startREST starts a scheduler that serves REST, with the allowed paths
// roots, and returns a client of it. The scheduler stops when the test
// ends.
func startREST(t *testing.T, roots []string) *client.Client {
	t.Helper()
	s, err := NewServer(Config{RPCAddr: "127.0.0.1:0", RESTAddr: "127.0.0.1:0", DataDir: t.TempDir(), AllowedPaths: roots})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return client.New("http://"+s.RESTAddr(), nil)
}

// fileJob is a job spec that reads source and writes into sink, with
// extra lines after.
func fileJob(source, sink string, extra ...string) []byte {
	return []byte("name: j\nsource: {type: file, uid: src, path: \"" + source + "\"}\nsink: {type: file, uid: out, path: \"" +
		sink + "\"}\n" + strings.Join(extra, "\n"))
}

// confinedDirs makes an allowed root holding an input file and a link out
// of the root, and returns the root and the base directory it is in.
func confinedDirs(t *testing.T) (root, base string) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "data")
	for _, d := range []string{root, filepath.Join(base, "outside")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "in.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	return root, base
}

// TestSubmitConfined checks that a scheduler with allowed paths refuses,
// with a 400 naming the field and the path, a job that reaches outside
// them, and accepts one that stays inside.
func TestSubmitConfined(t *testing.T) {
	root, _ := confinedDirs(t)
	c := startREST(t, []string{root})
	in, out := filepath.Join(root, "in.txt"), filepath.Join(root, "out")
	tests := []struct {
		name          string
		sub           api.Submission
		field, path   string
		wantSubmitted bool
	}{
		{name: "inside", sub: api.Submission{Spec: fileJob(in, out)}, wantSubmitted: true},
		{name: "shadow", sub: api.Submission{Spec: fileJob("/etc/shadow", out+"2")}, field: "source.path", path: "/etc/shadow"},
		{name: "sink dotdot", sub: api.Submission{Spec: fileJob(in, root+"/../outside/o")}, field: "sink.path", path: root + "/../outside/o"},
		{name: "sink prefix", sub: api.Submission{Spec: fileJob(in, root+"2/o")}, field: "sink.path", path: root + "2/o"},
		{name: "link out", sub: api.Submission{Spec: fileJob(in, root+"/escape/o")}, field: "sink.path", path: root + "/escape/o"},
		{name: "storage", sub: api.Submission{Spec: fileJob(in, out+"3", "checkpoints: {interval: 1s, storage: \"file:///etc\"}")},
			field: "checkpoints.storage", path: "/etc"},
		{name: "from savepoint", sub: api.Submission{Spec: fileJob(in, out+"4"), FromSavepoint: "file://" + root + "/../../etc"},
			field: "fromSavepoint", path: "file://" + root + "/../../etc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := c.Submit(context.Background(), tt.sub)
			if tt.wantSubmitted {
				if err != nil {
					t.Fatalf("submit: %v", err)
				}
				return
			}
			if !errors.Is(err, api.ErrBadRequest) {
				t.Fatalf("submit = %q, %v; want a 400", id, err)
			}
			for _, want := range []string{tt.field + ": ", tt.path, "outside the allowed paths", root} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// TestSubmitUnconfined checks that a scheduler without allowed paths
// keeps today's behaviour: any path goes.
func TestSubmitUnconfined(t *testing.T) {
	c := startREST(t, nil)
	if _, err := c.Submit(context.Background(), api.Submission{Spec: fileJob("/etc/shadow", t.TempDir())}); err != nil {
		t.Fatal(err)
	}
}

// TestSavepointDirConfined checks that a savepoint request whose dir lies
// outside the allowed paths is refused before any checkpoint is taken.
func TestSavepointDirConfined(t *testing.T) {
	root, _ := confinedDirs(t)
	c := startREST(t, []string{root})
	ctx := context.Background()
	id, err := c.Submit(ctx, api.Submission{Spec: fileJob(filepath.Join(root, "in.txt"), filepath.Join(root, "out"))})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{root + "/../../etc", "file:///etc", root + "/escape"} {
		_, err := c.Savepoint(ctx, id, dir)
		if !errors.Is(err, api.ErrBadRequest) || !strings.Contains(err.Error(), "dir: ") || !strings.Contains(err.Error(), "outside the allowed paths") {
			t.Errorf("savepoint into %q: %v, want a 400 about dir", dir, err)
		}
	}
	// Inside, the dir passes; the job, waiting for slots, cannot take one.
	if _, err := c.Savepoint(ctx, id, root+"/sp"); !errors.Is(err, api.ErrConflict) {
		t.Errorf("savepoint into the root: %v, want a 409 for a job not running", err)
	}
}

// TestOneJobPerSinkDir checks that a job is refused, with a 409 naming
// the other job, while a job that has not ended writes its sink directory,
// however the path is spelled, and accepted once that job has ended.
func TestOneJobPerSinkDir(t *testing.T) {
	for _, roots := range [][]string{nil, {"/"}} {
		root, _ := confinedDirs(t)
		c := startREST(t, roots)
		ctx := context.Background()
		in, out := filepath.Join(root, "in.txt"), filepath.Join(root, "out")
		if err := os.Symlink(out, filepath.Join(root, "alias")); err != nil {
			t.Fatal(err)
		}
		first, err := c.Submit(ctx, api.Submission{Spec: fileJob(in, out)})
		if err != nil {
			t.Fatal(err)
		}
		for _, sink := range []string{out, root + "/./alias", root + "/escape/../out"} {
			_, err := c.Submit(ctx, api.Submission{Spec: fileJob(in, sink)})
			if !errors.Is(err, api.ErrConflict) || !strings.Contains(err.Error(), first) || !strings.Contains(err.Error(), "sink.path") {
				t.Errorf("second job on %q: %v, want a 409 naming job %s", sink, err, first)
			}
		}
		if _, err := c.Submit(ctx, api.Submission{Spec: fileJob(in, out+"-other")}); err != nil {
			t.Errorf("a job on another directory: %v", err)
		}
		if err := c.Cancel(ctx, first); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Submit(ctx, api.Submission{Spec: fileJob(in, out)}); err != nil {
			t.Errorf("a job on the directory of a canceled one: %v", err)
		}
	}
}

// TestOneSinkPerDirInAJob checks that a job whose sink and side output
// write one directory is refused.
func TestOneSinkPerDirInAJob(t *testing.T) {
	root, _ := confinedDirs(t)
	c := startREST(t, nil)
	out := filepath.Join(root, "out")
	spec := []byte(`name: j
modules: {m: m.wasm}
source: {type: file, uid: src, path: "` + filepath.Join(root, "in.txt") + `"}
operators:
  - {type: map, uid: m, module: m, function: f, sideOutputs: {odd: {type: file, path: "` + out + `"}}}
sink: {type: file, uid: out, path: "` + out + `"}
`)
	_, err := c.Submit(context.Background(), api.Submission{Spec: spec})
	if !errors.Is(err, api.ErrBadRequest) || !strings.Contains(err.Error(), "written by") {
		t.Errorf("submit: %v, want a 400 about one directory written twice", err)
	}
}
