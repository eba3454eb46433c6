package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

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
	code := 1
	if err = build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// build compiles the binary and the operator modules into dir.
func build(dir string) error {
	var err error
	if repoRoot, err = wasmbuild.RepoRoot(); err != nil {
		return err
	}
	floeBin = filepath.Join(dir, "floe")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", floeBin, "./cmd/floe")
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building floe: %v\n%s", err, out)
	}
	modulesDir = filepath.Join(dir, "modules")
	cacheHome = filepath.Join(dir, "cache")
	for _, p := range []string{"wordcount", "testops", "nexmark"} {
		if _, err := wasmbuild.Go(filepath.Join(repoRoot, "udfs", p), modulesDir); err != nil {
			return err
		}
	}
	return nil
}
