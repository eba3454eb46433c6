package ui

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"go.uber.org/goleak"

	"github.com/floe-stream/floe/internal/wasmbuild"
)

// The binary and modules the test runs, built once in TestMain when a
// browser is there to drive them.
var (
	floeBin   string
	modules   string // directory holding testops.wasm
	cacheHome string
	// chromium is the browser's path, or "" when none is installed.
	chromium string
)

func TestMain(m *testing.M) {
	chromium = findChromium()
	dir, err := os.MkdirTemp("", "floe-ui")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if chromium != "" {
		f, err := wasmbuild.BuildFixture(dir, "testops")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
		floeBin, modules, cacheHome = f.Bin, f.Modules, f.CacheHome
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// findChromium returns the path of a Chromium or Chrome binary: the one
// FLOE_CHROMIUM names, or the first of the usual names on PATH; "" if
// there is none.
func findChromium() string {
	names := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}
	if p := os.Getenv("FLOE_CHROMIUM"); p != "" {
		names = []string{p}
	}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// needChromium skips the test when no browser is installed, or fails it
// under CI, where .ci/run installs one.
func needChromium(t *testing.T) {
	t.Helper()
	if chromium != "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed (nor FLOE_CHROMIUM), and CI is set, so the dashboard test must run: apt-get install chromium")
	}
	t.Skip("chromium is not installed (nor FLOE_CHROMIUM): apt-get install chromium to run the dashboard test")
}
