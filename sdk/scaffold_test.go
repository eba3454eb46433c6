package sdk

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestTemplatesHaveReadmes checks that every language's project comes with
// a README, as `floe new` promises a ready-to-use project in each.
func TestTemplatesHaveReadmes(t *testing.T) {
	for _, lang := range Languages() {
		dir := filepath.Join(t.TempDir(), "p")
		if _, err := New(lang, "wc", dir); err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
			t.Errorf("%s project has no README.md: %v", lang, err)
		}
	}
}

// TestGoProjectTests writes a Go project as `floe new --lang go` does and
// runs its own unit tests natively, which needs the SDK's test harness
// (floetest) copied into floe-sdk/; it also vets the module for wasip1,
// as ./build.sh builds it.
func TestGoProjectTests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go project")
	}
	dir := filepath.Join(t.TempDir(), "wc")
	if _, err := New("go", "wc", dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"README.md", "main.go", "main_test.go", "floe-sdk/sdk/go/floetest/harness.go",
		"floe-sdk/sdk/go/internal/nativehost/nativehost.go"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("project lacks %s: %v", f, err)
		}
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	run := func(env []string, args ...string) {
		t.Helper()
		cmd := exec.Command(gobin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append([]string{"GOWORK=off", "GOFLAGS=-mod=mod"}, env...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
	run(nil, "test", "-count=1", "./...")
	run([]string{"GOOS=wasip1", "GOARCH=wasm"}, "vet", "./...")
}
