// Package wasmbuild compiles Go operator packages to WebAssembly modules for
// tests, with the same toolchain and flags as `make udfs`, so tests run
// modules really built from SDK sources.
package wasmbuild

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// GoFlags are the flags a Go operator module is built with.
var GoFlags = []string{"build", "-buildmode=c-shared", "-trimpath"}

var (
	mu    sync.Mutex
	built = map[string]string{}
)

// Go builds the Go package in pkgDir (a directory path) to a .wasm file under
// outDir and returns its path. Builds are memoised per process and output.
func Go(pkgDir, outDir string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	abs, err := filepath.Abs(pkgDir)
	if err != nil {
		return "", err
	}
	out := filepath.Join(outDir, filepath.Base(abs)+".wasm")
	if _, ok := built[out]; ok {
		if _, err := os.Stat(out); err == nil {
			return out, nil
		}
	}
	args := append(append([]string(nil), GoFlags...), "-o", out, ".")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), args...)
	cmd.Dir = abs
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s to wasm: %v\n%s", pkgDir, err, strings.TrimSpace(string(b)))
	}
	built[out] = abs
	return out, nil
}

// RepoRoot returns the repository root, found from the working directory by
// walking up to go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Fixture is what end-to-end tests build once, from source, into a
// directory of their own: the floe binary and operator modules.
type Fixture struct {
	// Root is the repository root.
	Root string
	// Bin is the floe binary, built from ./cmd/floe.
	Bin string
	// Modules holds the modules, NAME.wasm for each udfs/NAME built.
	Modules string
	// CacheHome is an XDG_CACHE_HOME for the processes the tests start.
	CacheHome string
}

// BuildFixture builds the floe binary and the operator modules udfs/<name>
// into dir.
func BuildFixture(dir string, modules ...string) (Fixture, error) {
	root, err := RepoRoot()
	if err != nil {
		return Fixture{}, err
	}
	f := Fixture{Root: root, Bin: filepath.Join(dir, "floe"), Modules: filepath.Join(dir, "modules"),
		CacheHome: filepath.Join(dir, "cache")}
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", f.Bin, "./cmd/floe")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return Fixture{}, fmt.Errorf("building floe: %v\n%s", err, out)
	}
	for _, m := range modules {
		if _, err := Go(filepath.Join(root, "udfs", m), f.Modules); err != nil {
			return Fixture{}, err
		}
	}
	return f, nil
}
