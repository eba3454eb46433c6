package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floe-stream/floe/tests/textgen"
)

func TestFloeRunWordCount(t *testing.T) {
	dir := t.TempDir()
	var text bytes.Buffer
	if err := textgen.Write(&text, 300_000, 11); err != nil {
		t.Fatal(err)
	}
	if text.Len() < 1<<20 {
		t.Fatalf("input of %d bytes, want at least 1 MB", text.Len())
	}
	input := filepath.Join(dir, "input.txt")
	if err := os.WriteFile(input, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := textgen.Count(text.Bytes())
	spec := wordcountSpec(t)
	for _, p := range []int{1, 4} {
		t.Run(fmt.Sprintf("parallelism-%d", p), func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprint("out-", p))
			r := floe(t, 2*time.Minute, "run", spec, "--set", "input="+input, "--set", "output="+out,
				"--parallelism", fmt.Sprint(p), "--data-dir", filepath.Join(dir, fmt.Sprint("data-", p)))
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			parts, _ := filepath.Glob(filepath.Join(out, "part-*"))
			if len(parts) != p {
				t.Errorf("%d part files, want one per sink subtask: %d", len(parts), p)
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
			if !strings.Contains(r.stderr, "job finished") {
				t.Errorf("no completion line in the log:\n%s", r.stderr)
			}
		})
	}
}

// misbehaving is a job whose map runs testops' misbehave function over a
// file.
const misbehaving = `
name: misbehaving
parallelism: 2
modules:
  testops: MODULES/testops.wasm
source: {type: file, uid: in, path: "${input}"}
operators:
  - {type: map, uid: bad, module: testops, function: misbehave}
sink: {type: file, uid: out, path: "${output}"}
`

func TestFailingOperatorsExitNonZeroWithTheirMessage(t *testing.T) {
	spec := writeSpec(t, misbehaving)
	for _, tc := range []struct {
		record string
		want   []string
	}{
		{"panic", []string{"panic: asked to panic", `"panic"`}},
		{"error", []string{"poison record", `"error"`}},
		{"loop", []string{"did not return in time"}},
		{"bomb", []string{"memory cap of 64 MiB"}},
	} {
		t.Run(tc.record, func(t *testing.T) {
			dir := t.TempDir()
			input := filepath.Join(dir, "in.txt")
			os.WriteFile(input, []byte("a\nb\n"+tc.record+"\nc\n"), 0o644)
			// NB: only the loop needs a short deadline; the memory bomb's
			// growth can take more than 2s on a loaded machine, and must
			// fail on the cap, not the clock.
			timeout := "30s"
			if tc.record == "loop" {
				timeout = "2s"
			}
			r := floe(t, time.Minute, "run", spec, "--set", "input="+input, "--set", "output="+filepath.Join(dir, "out"),
				"--udf-timeout", timeout, "--max-memory", fmt.Sprint(64<<20), "--data-dir", dir)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
			}
			for _, w := range append(tc.want, `module "testops" function "misbehave"`, "job misbehaving failed") {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

func TestBadJobSpecsAreRefusedBeforeRunning(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		want       []string
		args       []string
	}{
		// One OS thread per task: 32768 of them killed floe run with
		// "thread exhaustion" (issue 16).
		{"more tasks than the process may run", strings.Replace(misbehaving, "parallelism: 2", "parallelism: 32768\nmaxParallelism: 32768", 1),
			[]string{"has 32768 tasks (stages times their parallelism), more than the 1024", "--max-tasks"}, nil},
		{"unknown operator", strings.Replace(misbehaving, "type: map", "type: reduce", 1),
			[]string{`operators[0].type: unknown operator type "reduce"`}, nil},
		{"missing module", strings.Replace(misbehaving, "MODULES/testops.wasm", "MODULES/nope.wasm", 1),
			[]string{"testops", "nope.wasm"}, nil},
		{"undeclared module", strings.Replace(misbehaving, "module: testops", "module: tstops", 1),
			[]string{`"tstops" is not declared in modules`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := writeSpec(t, tc.spec)
			r := floe(t, time.Minute, append([]string{"run", spec, "--set", "input=x", "--set", "output=y"}, tc.args...)...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

func TestInterruptStopsAnUnboundedJobCleanly(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "in.txt")
	os.WriteFile(input, []byte("one two\nthree\n"), 0o644)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(floeBin, "run", wordcountSpec(t), "--set", "input="+input, "--set", "output="+out,
		"--set", "follow=true", "--data-dir", dir, "-v")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cacheHome)
	var errb syncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the first lines have been counted; the job keeps running.
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(errb.String(), "job running") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("floe run did not stop on SIGINT\n%s", errb.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "job stopped: wordcount canceled (interrupted)") {
		t.Errorf("no stop line:\n%s", errb.String())
	}
	// The job's tasks ended before the mini-cluster stopped.
	for _, noise := range []string{"canceling all tasks", "reporting a task's end"} {
		if strings.Contains(errb.String(), noise) {
			t.Errorf("a warning %q after the job ended:\n%s", noise, errb.String())
		}
	}
	// What was counted before the interrupt reached the sink.
	got := maxCounts(t, out)
	if fmt.Sprint(got) != "map[one:1 three:1 two:1]" {
		t.Errorf("output after interrupt: %v", got)
	}
}
