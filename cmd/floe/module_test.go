package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/client/clienttest"
)

func TestModulePushListRm(t *testing.T) {
	fake := clienttest.NewFake()
	url := clienttest.NewServer(t, fake).URL
	path := filepath.Join(t.TempDir(), "wordcount.wasm")
	wasm := []byte("\x00asm wordcount")
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(wasm)
	digest := hex.EncodeToString(sum[:])

	tests := []struct {
		args []string
		want string
	}{
		{[]string{"push", path}, "wordcount@sha256:" + digest + "\n"},
		{[]string{"push", path, "--name", "wc"}, "wc@sha256:" + digest + "\n"},
		{[]string{"push", "--name=", path}, "wc@sha256:" + digest + "\n"}, // no name keeps the pushed one
		{[]string{"list"}, "DIGEST                                                                   NAME  SIZE  FUNCTIONS  USED BY\n" +
			"sha256:" + digest + "  wc    14 B  -          -\n"},
		{[]string{"rm", "sha256:" + digest}, "deleted sha256:" + digest + "\n"},
		{[]string{"list"}, "DIGEST  NAME  SIZE  FUNCTIONS  USED BY\n"},
	}
	for _, tt := range tests {
		r := runFloe(append(append([]string{"module"}, tt.args...), "--server", url)...)
		if r.code != 0 || r.stdout != tt.want {
			t.Errorf("floe module %s: exit %d, stdout %q, stderr %q; want %q", strings.Join(tt.args, " "), r.code, r.stdout, r.stderr, tt.want)
		}
	}
}

func TestModuleErrors(t *testing.T) {
	url := clienttest.NewServer(t, clienttest.NewFake()).URL
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"push", filepath.Join(t.TempDir(), "nope.wasm")}, 2, "no such file"},
		{[]string{"push"}, 2, "FILE.wasm"},
		{[]string{"rm", "abc"}, 1, "not a module digest"},
		{[]string{"rm", strings.Repeat("a", 64)}, 1, "no module sha256:" + strings.Repeat("a", 64)},
	}
	for _, tt := range tests {
		r := runFloe(append(append([]string{"module"}, tt.args...), "--server", url)...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("floe module %s: exit %d, stderr %q; want %d and %q", strings.Join(tt.args, " "), r.code, r.stderr, tt.code, tt.want)
		}
	}
}

// TestJobSubmitPushesModulesOnce checks that floe job submit uploads a
// module only the first time.
func TestJobSubmitPushesModulesOnce(t *testing.T) {
	c := startCluster(t)
	for range 2 {
		if r := runFloe("job", "submit", writeTestJob(t, true), "--server", c.url); r.code != 0 {
			t.Fatalf("submit: %+v", r)
		}
	}
	sum := sha256.Sum256([]byte("\x00asm"))
	if got := c.fake.Pushes(); len(got) != 1 || got[0] != hex.EncodeToString(sum[:]) {
		t.Errorf("pushes %v, want one of the test module", got)
	}
}

// TestRunRefusesAModuleReference checks that floe run, which runs module
// files, says why it cannot run a module named by digest.
func TestRunRefusesAModuleReference(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.yaml")
	spec := strings.Replace(testSpec, "ops: ops.wasm", "ops: ops@sha256:"+strings.Repeat("ab", 32), 1)
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runFloe("run", path)
	if r.code == 0 || !strings.Contains(r.stderr, `module "ops" is named by digest`) {
		t.Errorf("floe run: exit %d, stderr %q; want a refusal naming the module", r.code, r.stderr)
	}
}
