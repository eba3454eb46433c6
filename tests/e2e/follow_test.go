package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floe-stream/floe/tests/textgen"
)

// TestFollowWordCountShowsItsTail runs the word count in follow mode without
// checkpoints, appends words to its input while it runs, stops appending,
// and checks that the output's last count of every word converges to the
// word's true count while the job is still running: the sinks flush on
// their own, with no more input to push them. No line of the output is ever
// cut: every line read while the job runs is a whole "word,count".
func TestFollowWordCountShowsItsTail(t *testing.T) {
	const chunks, wordsPerChunk = 20, 5_000
	dir := t.TempDir()
	input := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(input, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(floeBin, "run", wordcountSpec(t), "--set", "input="+input, "--set", "output="+out,
		"--set", "follow=true", "--parallelism", "2", "--data-dir", filepath.Join(dir, "data"))
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cacheHome)
	var errb syncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// exited is closed once the run has exited.
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		cmd.Wait()
	}()
	defer stopRun(t, cmd, exited, &errb)

	// The sinks create their part files when the job's tasks open.
	waitFor(t, time.Minute, exited, &errb, "the part files", func() bool {
		parts, _ := filepath.Glob(filepath.Join(out, "part-*"))
		return len(parts) == 2
	})
	var text bytes.Buffer
	for i := range chunks {
		var chunk bytes.Buffer
		if err := textgen.Write(&chunk, wordsPerChunk, uint64(100+i)); err != nil {
			t.Fatal(err)
		}
		appendTo(t, input, chunk.Bytes())
		text.Write(chunk.Bytes())
		checkWholeLines(t, out)
		time.Sleep(50 * time.Millisecond)
	}
	lastAppend := time.Now()
	want := textgen.Count(text.Bytes())

	var got map[string]int64
	waitFor(t, time.Minute, exited, &errb, "the output to show the true counts", func() bool {
		got = checkWholeLines(t, out)
		return equalCounts(got, want)
	})
	t.Logf("the output showed the true counts %v after the last append", time.Since(lastAppend).Round(10*time.Millisecond))
	for _, part := range partFiles(t, out) {
		if b := readFile(t, part); len(b) > 0 && b[len(b)-1] != '\n' {
			t.Errorf("%s ends in a cut line: %q", part, b[bytes.LastIndexByte(b, '\n')+1:])
		}
	}
}

// wordCount is a whole line of the word count's output.
var wordCount = regexp.MustCompile(`^[a-z0-9]+,[1-9][0-9]*$`)

// checkWholeLines reads the part files in out, fails the test on a line
// that is not a whole "word,count", and returns each word's last count. A
// last line without its "\n" may be a write the sink is making as the test
// reads, so it is left for a later read to see whole.
func checkWholeLines(t *testing.T, out string) map[string]int64 {
	t.Helper()
	last := map[string]int64{}
	for _, part := range partFiles(t, out) {
		b := readFile(t, part)
		b = b[:bytes.LastIndexByte(b, '\n')+1]
		for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if line == "" && len(b) == 0 {
				continue
			}
			if !wordCount.MatchString(line) {
				t.Fatalf("%s holds the line %q, not a whole word,count", part, line)
			}
			w, c, _ := strings.Cut(line, ",")
			last[w], _ = strconv.ParseInt(c, 10, 64)
		}
	}
	return last
}

// equalCounts reports whether got and want hold the same words and counts.
func equalCounts(got, want map[string]int64) bool {
	if len(got) != len(want) {
		return false
	}
	for w, n := range want {
		if got[w] != n {
			return false
		}
	}
	return true
}

// waitFor polls cond until it holds, failing the test if the run exits or
// the deadline passes first.
func waitFor(t *testing.T, limit time.Duration, exited <-chan struct{}, errb *syncBuffer, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		select {
		case <-exited:
			t.Fatalf("floe run exited while the test waited for %s\n%s", what, errb.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %s\n%s", what, limit, errb.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stopRun interrupts the run and checks that it stops as an interrupted
// run does.
func stopRun(t *testing.T, cmd *exec.Cmd, exited <-chan struct{}, errb *syncBuffer) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("floe run did not stop on SIGINT\n%s", errb.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 && !t.Failed() {
		t.Errorf("exit %d after SIGINT, want 130\n%s", code, errb.String())
	}
}

// appendTo appends data to the file at path in one write.
func appendTo(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// partFiles lists the part files in out.
func partFiles(t *testing.T, out string) []string {
	t.Helper()
	parts, err := filepath.Glob(filepath.Join(out, "part-*"))
	if err != nil {
		t.Fatal(err)
	}
	return parts
}

// readFile returns the contents of path.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(fmt.Errorf("reading the output: %w", err))
	}
	return b
}
