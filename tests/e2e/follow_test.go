package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector/file"
	"github.com/floe-stream/floe/tests/textgen"
)

// TestFollowWordCountShowsItsTail runs the word count in follow mode without
// checkpoints, appends words to its input while it runs, stops appending,
// and checks that the output's last count of every word converges to the
// word's true count while the job is still running: the sinks flush on
// their own, with no more input to push them. No line of the output is ever
// cut: every line read while the job runs is a whole "word,count". The
// issue asked for convergence within 3 s; on a shared machine the test
// allows a minute and logs how long it took.
func TestFollowWordCountShowsItsTail(t *testing.T) {
	dir := t.TempDir()
	input := emptyFile(t, filepath.Join(dir, "in.txt"))
	out := filepath.Join(dir, "out")
	r := startRun(t, "run", wordcountSpec(t), "--set", "input="+input, "--set", "output="+out,
		"--set", "follow=true", "--parallelism", "2", "--data-dir", filepath.Join(dir, "data"))

	// The sinks create their part files when the job's tasks open.
	r.waitFor(t, "the part files", func() bool { return len(partFiles(t, out)) == 2 })
	want := appendWords(t, input, func() { partCounts(t, out) })
	lastAppend := time.Now()
	r.waitFor(t, "the output to show the true counts", func() bool {
		return equalCounts(partCounts(t, out), want)
	})
	t.Logf("the output showed the true counts %v after the last append", time.Since(lastAppend).Round(10*time.Millisecond))
	for _, part := range partFiles(t, out) {
		if b := readFile(t, part); len(b) > 0 && b[len(b)-1] != '\n' {
			t.Errorf("%s ends in a cut line: %q", part, b[bytes.LastIndexByte(b, '\n')+1:])
		}
	}
	// The source has two subtasks, of which one reads, and says so.
	if !strings.Contains(r.stderr.String(), file.FollowNote) {
		t.Errorf("floe run did not say that one subtask reads the followed file:\n%s", r.stderr.String())
	}
}

// followPrint is a follow-mode word count that prints its counts, with its
// source at parallelism 1 as docs/connectors.md advises for a followed file.
const followPrint = `
name: follow-print
parallelism: 2
modules:
  wordcount: MODULES/wordcount.wasm
source: {type: file, uid: lines, path: "${input}", follow: true, parallelism: 1}
operators:
  - {type: flatMap, uid: split, module: wordcount, function: split}
  - {type: keyBy, uid: by-word, key: value}
  - {type: process, uid: count, module: wordcount, function: count}
sink: {type: stdout, uid: out, flushInterval: 200ms}
`

// TestFollowWordCountPrintsItsTail is TestFollowWordCountShowsItsTail with a
// stdout sink: what floe run prints converges to the true counts while the
// job runs.
func TestFollowWordCountPrintsItsTail(t *testing.T) {
	dir := t.TempDir()
	input := emptyFile(t, filepath.Join(dir, "in.txt"))
	r := startRun(t, "run", writeSpec(t, followPrint), "--set", "input="+input, "--data-dir", filepath.Join(dir, "data"))
	want := appendWords(t, input, func() { printedCounts(t, r.stdout.String()) })
	lastAppend := time.Now()
	r.waitFor(t, "floe run to print the true counts", func() bool {
		return equalCounts(printedCounts(t, r.stdout.String()), want)
	})
	t.Logf("floe run printed the true counts %v after the last append", time.Since(lastAppend).Round(10*time.Millisecond))
	if s := r.stdout.String(); !strings.HasSuffix(s, "\n") {
		t.Errorf("stdout ends in a cut line: %q", s[strings.LastIndexByte(s, '\n')+1:])
	}
}

// appendWords appends 100,000 generated words to the file at path in 20
// chunks, calling check after each, and returns the true count of every
// word.
func appendWords(t *testing.T, path string, check func()) map[string]int64 {
	t.Helper()
	var text bytes.Buffer
	for i := range 20 {
		var chunk bytes.Buffer
		if err := textgen.Write(&chunk, 5_000, uint64(100+i)); err != nil {
			t.Fatal(err)
		}
		appendTo(t, path, chunk.Bytes())
		text.Write(chunk.Bytes())
		check()
		time.Sleep(50 * time.Millisecond)
	}
	return textgen.Count(text.Bytes())
}

// wordCount is a whole line of the word count's output; sinkLike is any
// line the sink could have written, whole or cut.
var (
	wordCount = regexp.MustCompile(`^[a-z0-9]+,[1-9][0-9]*$`)
	sinkLike  = regexp.MustCompile(`^[a-z0-9,]*$`)
)

// partCounts reads the part files in out, fails the test on a line that is
// not a whole "word,count", and returns each word's last count. A last line
// without its "\n" may be a write the sink is making as the test reads, so
// it is left for a later read to see whole.
func partCounts(t *testing.T, out string) map[string]int64 {
	t.Helper()
	last := map[string]int64{}
	for _, part := range partFiles(t, out) {
		for _, line := range wholeLines(string(readFile(t, part))) {
			if !wordCount.MatchString(line) {
				t.Fatalf("%s holds the line %q, not a whole word,count", part, line)
			}
			addCount(last, line)
		}
	}
	return last
}

// printedCounts returns each word's last count in what floe run printed,
// failing the test on a line that the sink could have written but is not a
// whole "word,count". Other lines, which the command itself may print, are
// skipped.
func printedCounts(t *testing.T, stdout string) map[string]int64 {
	t.Helper()
	last := map[string]int64{}
	for _, line := range wholeLines(stdout) {
		switch {
		case wordCount.MatchString(line):
			addCount(last, line)
		case sinkLike.MatchString(line):
			t.Fatalf("floe run printed the line %q, not a whole word,count", line)
		}
	}
	return last
}

// wholeLines returns the lines of s that end in "\n", without it.
func wholeLines(s string) []string {
	s = s[:strings.LastIndexByte(s, '\n')+1]
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// addCount records the count of a "word,count" line as its word's last.
func addCount(last map[string]int64, line string) {
	w, c, _ := strings.Cut(line, ",")
	last[w], _ = strconv.ParseInt(c, 10, 64)
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

// running is a floe process that the test stops with SIGINT when it ends.
type running struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	// exited is closed once the process has exited.
	exited chan struct{}
}

// startRun starts floe with args, and registers its interruption, which
// must end it with the exit code of an interrupted run, 130.
func startRun(t *testing.T, args ...string) *running {
	t.Helper()
	r := &running{cmd: exec.Command(floeBin, args...), exited: make(chan struct{})}
	r.cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cacheHome)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(r.exited)
		r.cmd.Wait()
	}()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// waitFor polls cond until it holds, failing the test if the process exits
// or a minute passes first.
func (r *running) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		select {
		case <-r.exited:
			t.Fatalf("floe exited while the test waited for %s\n%s", what, r.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after a minute\n%s", what, r.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop interrupts the process and checks that it stops as an interrupted
// run does.
func (r *running) stop(t *testing.T) {
	r.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-r.exited:
	case <-time.After(30 * time.Second):
		r.cmd.Process.Kill()
		<-r.exited
		t.Fatalf("floe did not stop on SIGINT\n%s", r.stderr.String())
	}
	if code := r.cmd.ProcessState.ExitCode(); code != 130 && !t.Failed() {
		t.Errorf("exit %d after SIGINT, want 130\n%s", code, r.stderr.String())
	}
}

// emptyFile creates an empty file at path and returns path.
func emptyFile(t *testing.T, path string) string {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
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
		t.Fatalf("reading the output: %v", err)
	}
	return b
}
