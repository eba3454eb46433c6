package cluster

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/floe-stream/floe/internal/wasmbuild"
)

// What TestMain builds once for every test.
var (
	// floeBin is the floe binary, built from ./cmd/floe.
	floeBin string
	// repoRoot is the repository's root directory.
	repoRoot string
	// modulesDir holds wordcount.wasm and testops.wasm, built from udfs/.
	// Job specs written next to them name them by relative path.
	modulesDir string
	// cacheHome is XDG_CACHE_HOME for every process the tests start.
	cacheHome string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "floe-cluster")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err = build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	// The check sees this process only: the HTTP clients and log readers
	// the tests start, not the floe processes they run.
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// build compiles the binary and the operator modules into dir.
func build(dir string) error {
	f, err := wasmbuild.BuildFixture(dir, "wordcount", "testops", "nexmark")
	floeBin, repoRoot, modulesDir, cacheHome = f.Bin, f.Root, f.Modules, f.CacheHome
	return err
}
