package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestNewProjectsBuildAndRun follows what `floe new` prints for every
// language: write the project, build it with its own script, run its job,
// and check the word counts against the project's input.
func TestNewProjectsBuildAndRun(t *testing.T) {
	for _, lang := range []string{"go", "c", "rust", "as"} {
		t.Run(lang, func(t *testing.T) {
			dir := t.TempDir()
			name := "wc-" + lang
			out, err := exec.Command(floeBin, "new", "--lang", lang, "--dir", filepath.Join(dir, name), name).CombinedOutput()
			if err != nil {
				t.Fatalf("floe new: %v\n%s", err, out)
			}
			// The printed steps, after "cd DIR": the build, then the run.
			var steps []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n")[2:] {
				steps = append(steps, strings.TrimSpace(l))
			}
			if len(steps) < 2 || !strings.HasPrefix(steps[1], "floe run") {
				t.Fatalf("unexpected next steps:\n%s", out)
			}
			project := filepath.Join(dir, name)
			build := exec.Command("sh", "-c", steps[0])
			build.Dir = project
			build.Env = append(os.Environ(), "PATH="+filepath.Join(runtime.GOROOT(), "bin")+":"+os.Getenv("PATH"))
			if b, err := build.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", steps[0], err, b)
			}
			run := exec.Command(floeBin, strings.Fields(steps[1])[1:]...)
			run.Dir = project
			run.Env = append(os.Environ(), "XDG_CACHE_HOME="+cacheHome)
			if b, err := run.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", steps[1], err, b)
			}
			input, err := os.ReadFile(filepath.Join(project, "input.txt"))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{}
			for _, w := range strings.Fields(string(input)) {
				want[w]++
			}
			parts, _ := filepath.Glob(filepath.Join(project, "out", "part-*"))
			got := map[string]int{}
			for _, p := range parts {
				b, _ := os.ReadFile(p)
				for _, line := range strings.Fields(string(b)) {
					var n int
					w, c, _ := strings.Cut(line, ",")
					fmt.Sscan(c, &n)
					got[w] = max(got[w], n)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("counts %v, want %v", got, want)
			}
		})
	}
}
