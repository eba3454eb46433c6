package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/tests/textgen"
)

// TestFloeRunWithTLS runs the word count on a mini-cluster whose scheduler
// and task managers talk mutual TLS (floe run --tls-dir), and checks that a
// certificate of another role than the scheduler's is refused up front.
func TestFloeRunWithTLS(t *testing.T) {
	dir := t.TempDir()
	certs := filepath.Join(dir, "certs")
	if r := floe(t, time.Minute, "certs", "init", certs); r.code != 0 {
		t.Fatalf("floe certs init: exit %d\n%s", r.code, r.stderr)
	}
	var text bytes.Buffer
	if err := textgen.Write(&text, 50_000, 12); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "input.txt")
	if err := os.WriteFile(input, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := textgen.Count(text.Bytes())
	spec := wordcountSpec(t)

	out := filepath.Join(dir, "out")
	r := floe(t, 2*time.Minute, "run", spec, "--set", "input="+input, "--set", "output="+out, "--parallelism", "2",
		"--data-dir", filepath.Join(dir, "data"), "--tls-dir", filepath.Join(certs, "scheduler"))
	if r.code != 0 {
		t.Fatalf("floe run --tls-dir: exit %d\n%s", r.code, r.stderr)
	}
	got := maxCounts(t, out)
	for w, n := range want {
		if got[w] != n {
			t.Errorf("word %q: largest count %d, want %d", w, got[w], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d distinct words, want %d", len(got), len(want))
	}

	r = floe(t, time.Minute, "run", spec, "--set", "input="+input, "--set", "output="+filepath.Join(dir, "out2"),
		"--data-dir", filepath.Join(dir, "data2"), "--tls-dir", filepath.Join(certs, "client"))
	if r.code == 0 || !strings.Contains(r.stderr, "needs a scheduler's certificate") {
		t.Errorf("floe run with a client's certificate: exit %d, want a refusal naming the scheduler's certificate\n%s", r.code, r.stderr)
	}
}
