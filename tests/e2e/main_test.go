package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/tests/textgen"
)

// The binary and modules the tests run, built once in TestMain.
var (
	floeBin   string
	repoRoot  string
	modules   string // directory holding wordcount.wasm and testops.wasm
	cacheHome string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "floe-e2e")
	if err != nil {
		panic(err)
	}
	code := 1
	if err = build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

func build(dir string) error {
	f, err := wasmbuild.BuildFixture(dir, "wordcount", "testops")
	floeBin, repoRoot, modules, cacheHome = f.Bin, f.Root, f.Modules, f.CacheHome
	return err
}

// syncBuffer is a bytes.Buffer safe to read while a process writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// result is a finished floe process.
type result struct {
	code           int
	stdout, stderr string
}

// floe runs the binary with args and a deadline.
func floe(t *testing.T, timeout time.Duration, args ...string) result {
	t.Helper()
	cmd := exec.Command(floeBin, args...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cacheHome)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(timeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("floe %v did not finish within %s\nstderr:\n%s", args, timeout, errb.String())
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
}

// wordcountSpec copies the example's job spec next to the built module and
// returns its path.
func wordcountSpec(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "udfs", "wordcount", "job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(modules, "wordcount-job.yaml")
	if err := os.WriteFile(spec, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return spec
}

// writeSpec writes a job spec whose modules live in the modules directory.
func writeSpec(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "job.yaml")
	text = strings.ReplaceAll(text, "MODULES", modules)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// maxCounts reads "word,count" part files and keeps each word's largest
// count.
func maxCounts(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	got, err := textgen.MaxCounts(dir)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
