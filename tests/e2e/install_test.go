package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestInstallPutsFloeOnThePath follows the README's first hour from a
// fresh shell: make install with a PREFIX, then floe new and floe run found
// on the PATH alone (no bin/ path, no environment but what a login has).
func TestInstallPutsFloeOnThePath(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "prefix")
	install := exec.Command("make", "install", "PREFIX="+prefix, "GOBIN=", "BIN="+filepath.Join(dir, "bin"))
	install.Dir = repoRoot
	install.Env = append(os.Environ(), "PATH="+filepath.Join(runtime.GOROOT(), "bin")+":"+os.Getenv("PATH"))
	out, err := install.CombinedOutput()
	if err != nil {
		t.Fatalf("make install PREFIX=%s: %v\n%s", prefix, err, out)
	}
	if !strings.Contains(string(out), "installed "+filepath.Join(prefix, "bin", "floe")) {
		t.Errorf("make install said:\n%s", out)
	}
	// A fresh shell: only the install's bin, the Go toolchain's (the
	// template builds with go) and the system's on the PATH.
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	script := `set -e
cd "$HOME"
floe version
floe new --lang go wc
cd wc
./build.sh
floe run job.yaml
`
	sh := exec.Command("sh", "-c", script)
	gocache, _ := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "env", "GOCACHE", "GOMODCACHE").Output()
	caches := strings.Fields(string(gocache))
	sh.Env = []string{
		"HOME=" + home,
		"PATH=" + filepath.Join(prefix, "bin") + ":" + filepath.Join(runtime.GOROOT(), "bin") + ":/usr/local/bin:/usr/bin:/bin",
		"XDG_CACHE_HOME=" + cacheHome,
	}
	if len(caches) == 2 {
		// NB: the module cache and build cache of this machine, so the
		// template builds offline as it does for a user who has built Go
		// before.
		sh.Env = append(sh.Env, "GOCACHE="+caches[0], "GOMODCACHE="+caches[1], "GOFLAGS=-mod=mod", "GOPROXY="+goEnv("GOPROXY"))
	}
	out, err = sh.CombinedOutput()
	if err != nil {
		t.Fatalf("in a fresh shell: %v\n%s", err, out)
	}
	parts, _ := filepath.Glob(filepath.Join(home, "wc", "out", "part-*"))
	if len(parts) == 0 {
		t.Fatalf("floe run from the PATH wrote no output:\n%s", out)
	}
	if !strings.Contains(string(out), "job finished") {
		t.Errorf("floe run printed no summary:\n%s", out)
	}
}

func goEnv(name string) string {
	b, _ := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "env", name).Output()
	return strings.TrimSpace(string(b))
}
