package jobspec_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/floe-stream/floe/host/connector/builtin"
	. "github.com/floe-stream/floe/internal/jobspec"
)

func TestModulePathsResolveAgainstBaseDir(t *testing.T) {
	spec := y(okName, okSource, okSink, "modules: {rel: a/../m.wasm, abs: /opt/x.wasm, up: ../y.wasm}")
	tests := []struct {
		baseDir string
		want    map[string]string
	}{
		{"/specs/job", map[string]string{"rel": "/specs/job/m.wasm", "abs": "/opt/x.wasm", "up": "/specs/y.wasm"}},
		{"", map[string]string{"rel": cwdJoin(t, "m.wasm"), "abs": "/opt/x.wasm", "up": cwdJoin(t, "../y.wasm")}},
	}
	for _, tt := range tests {
		job, err := Parse([]byte(spec), tt.baseDir, nil)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range tt.want {
			if got := job.Modules[name]; got != want {
				t.Errorf("baseDir %q: module %s = %q, want %q", tt.baseDir, name, got, want)
			}
		}
	}
}

func cwdJoin(t *testing.T, rel string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(wd, rel)
}

func TestCheckModules(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok.wasm"), []byte("\x00asm"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.wasm"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		modules string
		want    []string
	}{
		{"{wc: ok.wasm}", nil},
		{"{}", nil},
		{"{wc: ok.wasm, gone: missing.wasm, d: dir.wasm}", []string{
			`module "d": ` + filepath.Join(dir, "dir.wasm") + ` is not a regular file`,
			`module "gone": stat ` + filepath.Join(dir, "missing.wasm") + `: no such file or directory`,
		}},
	}
	for _, tt := range tests {
		job, err := Parse([]byte(y(okName, okSource, okSink, "modules: "+tt.modules)), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = job.CheckModules()
		if tt.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tt.modules, err)
			}
			continue
		}
		if err == nil {
			t.Fatalf("%s: no error", tt.modules)
		}
		assertLines(t, err, tt.want)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: error does not match fs.ErrNotExist", tt.modules)
		}
	}
}

func TestCheckModulesOfTheShippedExample(t *testing.T) {
	job, err := Load(filepath.Join("testdata", "wordcount.yaml"), map[string]string{"input": "i", "output": "o"})
	if err != nil {
		t.Fatal(err)
	}
	err = job.CheckModules()
	if err == nil || !strings.Contains(err.Error(), `module "wordcount": stat `) {
		t.Fatalf("CheckModules() = %v, want a missing wordcount.wasm", err)
	}
	if !filepath.IsAbs(job.Modules["wordcount"]) {
		t.Errorf("module path %q is not absolute", job.Modules["wordcount"])
	}
}
