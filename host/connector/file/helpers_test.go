package file

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/connectortest"
)

// writeTemp writes content to a new file in a test directory and returns its
// path.
func writeTemp(t testing.TB, content []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "input.txt")
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// appendFile appends text to the file at path.
func appendFile(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// expectedLines splits content into lines the simple way: at each "\n",
// dropping the "\r" of a "\r\n", with a last line that may lack its "\n".
func expectedLines(content []byte) []string {
	var lines []string
	for len(content) > 0 {
		i := bytes.IndexByte(content, '\n')
		if i < 0 {
			return append(lines, string(content))
		}
		lines = append(lines, strings.TrimSuffix(string(content[:i]), "\r"))
		content = content[i+1:]
	}
	return lines
}

// randomContent returns a file of random lines: empty, short and long ones,
// some ending in "\r\n", some holding a stray "\r", and a last line that may
// lack its newline.
func randomContent(r *rand.Rand) []byte {
	var buf []byte
	for range r.IntN(60) {
		buf = append(buf, randomLine(r)...)
		if r.IntN(5) == 0 {
			buf = append(buf, '\r')
		}
		buf = append(buf, '\n')
	}
	if r.IntN(2) == 0 {
		buf = append(buf, randomLine(r)...)
	}
	return buf
}

// randomLine returns a line without end-of-line bytes, mostly short.
func randomLine(r *rand.Rand) []byte {
	n := []int{0, r.IntN(8), r.IntN(40), r.IntN(300)}[r.IntN(4)]
	line := make([]byte, n)
	for i := range line {
		line[i] = "abcdefghij\r"[r.IntN(11)]
	}
	return line
}

// readSplit opens split of cfg and returns all its lines, read in batches of
// at most max.
func readSplit(t testing.TB, cfg SourceConfig, split connector.SplitInfo, max int) []string {
	t.Helper()
	src, err := OpenSource(cfg, split)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	lines, err := connectortest.Drain(context.Background(), src, max)
	if err != nil {
		t.Fatalf("split %+v: %v", split, err)
	}
	return lines
}

// parallelisms returns the parallelisms to split a file of size bytes with:
// small ones, odd ones and, for small files, ones beyond the number of bytes
// (so that most splits are empty).
func parallelisms(size int) []int {
	ps := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 17, 64, 257}
	if size <= 300 {
		ps = append(ps, size+1, size+5)
	}
	return ps
}
