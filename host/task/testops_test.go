package task

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/wasmbuild"
)

// testopsWasm is udfs/testops built once, by the first test that needs it.
var testopsWasm = sync.OnceValues(func() ([]byte, error) {
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "floe-task-test")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path, err := wasmbuild.Go(filepath.Join(root, "udfs", "testops"), dir)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(path)
})

// testopsModule returns an Env.Module that compiles udfs/testops for any
// name, in an engine closed when t ends.
func testopsModule(t *testing.T) func(ctx context.Context, name string) (*udf.Module, error) {
	t.Helper()
	wasm, err := testopsWasm()
	if err != nil {
		t.Fatal(err)
	}
	e, err := udf.NewEngine(context.Background(), udf.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return func(ctx context.Context, name string) (*udf.Module, error) {
		return e.Compile(ctx, name, wasm)
	}
}

// udfModule returns an Env.Module that compiles udfs/dir for any name, in
// an engine closed when t ends.
func udfModule(t *testing.T, dir string) func(ctx context.Context, name string) (*udf.Module, error) {
	t.Helper()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	path, err := wasmbuild.Go(filepath.Join(root, "udfs", dir), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := udf.NewEngine(context.Background(), udf.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return func(ctx context.Context, name string) (*udf.Module, error) {
		return e.Compile(ctx, name, wasm)
	}
}

// memStore is a CheckpointStore in memory.
type memStore struct {
	mu    sync.Mutex
	files map[string][]byte
}

func (m *memStore) Put(_ context.Context, path string, r io.Reader, _ int64) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = map[string][]byte{}
	}
	m.files[path] = b
	return nil
}

func (m *memStore) Get(_ context.Context, path string) (io.ReadCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[path]
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, os.ErrNotExist)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}
