package cluster

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/floe-stream/floe/tests/textgen"
)

// input is a generated text file and what a word count of it must give.
type input struct {
	path  string
	bytes int
	lines int64
	words int64
	want  map[string]int64
}

// newInput writes words words of text generated from seed into a
// temporary file and counts them with textgen's independent count.
func newInput(t *testing.T, words int, seed uint64) input {
	t.Helper()
	var text bytes.Buffer
	if err := textgen.Write(&text, words, seed); err != nil {
		t.Fatal(err)
	}
	in := input{path: filepath.Join(t.TempDir(), "input.txt"), bytes: text.Len(),
		lines: int64(bytes.Count(text.Bytes(), []byte("\n"))), want: textgen.Count(text.Bytes())}
	for _, n := range in.want {
		in.words += n
	}
	if err := os.WriteFile(in.path, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return in
}

// check reads the "word,count" part files in dir and compares each word's
// largest count with the input's count. The word count emits one line per
// word it reads, so the part files must also hold exactly one line per word
// of the input: no more (left over from a failed attempt) and no fewer.
func (in input) check(t *testing.T, dir string, parts int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil || len(files) != parts {
		t.Fatalf("part files in %s: %v (%v), want one per sink subtask: %d", dir, files, err, parts)
	}
	got := map[string]int64{}
	var lines int64
	for _, f := range files {
		lines += readCounts(t, f, got)
	}
	bad := 0
	for w, n := range in.want {
		if got[w] != n && bad < 10 {
			t.Errorf("word %q: largest count %d, want %d", w, got[w], n)
			bad++
		}
	}
	if len(got) != len(in.want) {
		t.Errorf("%d distinct words in the output, want %d", len(got), len(in.want))
	}
	if lines != in.words {
		t.Errorf("%d lines in the output, want one per word of the input: %d", lines, in.words)
	}
}

// readCounts adds the counts of part file f to got, keeping each word's
// largest, and returns its number of lines.
func readCounts(t *testing.T, f string, got map[string]int64) int64 {
	t.Helper()
	fh, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var lines int64
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		w, c, ok := strings.Cut(sc.Text(), ",")
		n, err := strconv.ParseInt(c, 10, 64)
		if !ok || err != nil {
			t.Fatalf("%s: bad line %q", f, sc.Text())
		}
		got[w] = max(got[w], n)
		lines++
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	return lines
}

// wordcountSpec writes the example word-count spec, with extra appended,
// next to the built module and returns its path. name must be unique among
// the tests.
func wordcountSpec(t *testing.T, name, extra string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "udfs", "wordcount", "job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return writeSpec(t, name, string(b)+extra)
}

// writeSpec writes a job spec next to the built modules, so that it names
// them by relative path, and returns its path.
func writeSpec(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(modulesDir, name+".yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
