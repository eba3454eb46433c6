package taskmanager

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/wasmbuild"
)

// testops is the compiled udfs/testops module, built once for the package,
// and testCache the compiled-code cache its task managers share.
var testops, testCache string

// TestMain builds and compiles the test module, and fails the package's tests if any
// goroutine they started is still running once they are over.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "floe-taskmanager-test")
	if err == nil {
		testCache = filepath.Join(dir, "wasm-cache")
		var root string
		if root, err = wasmbuild.RepoRoot(); err == nil {
			testops, err = wasmbuild.Go(filepath.Join(root, "udfs", "testops"), dir)
		}
	}
	if err == nil {
		err = compileOnce()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// compileOnce fills testCache with the module's compiled code, so that no
// test waits for a compilation, which takes a minute under -race on a busy
// machine.
func compileOnce() error {
	ctx := context.Background()
	wasm, err := os.ReadFile(testops)
	if err != nil {
		return err
	}
	e, err := udf.NewEngine(ctx, udf.Config{CacheDir: testCache})
	if err != nil {
		return err
	}
	defer e.Close(ctx)
	_, err = e.Compile(ctx, "testops", wasm)
	return err
}
