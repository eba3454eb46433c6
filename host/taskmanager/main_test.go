package taskmanager

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/floe-stream/floe/internal/wasmbuild"
)

// testops is the compiled udfs/testops module, built once for the package,
// and testCache the compiled-code cache its task managers share.
var testops, testCache string

// TestMain builds the test module, and fails the package's tests if any
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
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}
