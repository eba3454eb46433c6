package cluster

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/tests/textgen"
)

// appender feeds a followed input file: every tick it appends a chunk of
// generated text and adds the chunk's word count to the true count of the
// input. The job never sees the true count; only the test does.
type appender struct {
	path string
	stop chan struct{}
	wg   sync.WaitGroup

	mu    sync.Mutex
	want  map[string]int64
	words int64
	err   error
}

// startAppender creates path and appends wordsPerTick words to it every
// tick until stopped. Chunk i is generated from seed+i, so a run is
// reproducible from its seed.
func startAppender(t *testing.T, path string, wordsPerTick int, tick time.Duration, seed uint64) *appender {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	a := &appender{path: path, stop: make(chan struct{}), want: map[string]int64{}}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer f.Close()
		a.run(f, wordsPerTick, tick, seed)
	}()
	t.Cleanup(a.halt)
	return a
}

// run appends chunks until a.stop is closed or a write fails.
func (a *appender) run(f *os.File, wordsPerTick int, tick time.Duration, seed uint64) {
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	var chunk bytes.Buffer
	for i := uint64(0); ; i++ {
		select {
		case <-a.stop:
			return
		case <-ticker.C:
		}
		chunk.Reset()
		err := textgen.Write(&chunk, wordsPerTick, seed+i)
		if err == nil {
			// NB: the chunk ends with "\n", so the source never sees half a
			// line, and one write keeps the file made of whole chunks.
			_, err = f.Write(chunk.Bytes())
		}
		if err != nil {
			a.mu.Lock()
			a.err = err
			a.mu.Unlock()
			return
		}
		a.add(textgen.Count(chunk.Bytes()))
	}
}

// add adds a chunk's count to the true count.
func (a *appender) add(counts map[string]int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for w, n := range counts {
		a.want[w] += n
		a.words += n
	}
}

// written returns how many words have been appended so far.
func (a *appender) written() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.words
}

// halt stops appending and waits until the last chunk is written. It may be
// called more than once.
func (a *appender) halt() {
	select {
	case <-a.stop:
	default:
		close(a.stop)
	}
	a.wg.Wait()
}

// finish stops appending and returns the true count of the whole input,
// as newInput would have computed it.
func (a *appender) finish(t *testing.T) input {
	t.Helper()
	a.halt()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		t.Fatalf("appending to %s: %v", a.path, a.err)
	}
	return input{path: a.path, words: a.words, want: a.want}
}

// committed reads the committed part files of a file sink's directory.
// Committed files never change once they have their name, so it counts
// the lines of each file once and remembers it.
type committed struct {
	dir   string
	lines map[string]int64
}

// count returns the number of lines in the committed part files so far.
func (c *committed) count() (int64, error) {
	files, err := filepath.Glob(filepath.Join(c.dir, "part-*"))
	if err != nil {
		return 0, err
	}
	var total int64
	for _, f := range files {
		n, ok := c.lines[f]
		if !ok {
			b, err := os.ReadFile(f)
			if errors.Is(err, os.ErrNotExist) {
				continue // NB: a fresh start of a subtask removes its files
			} else if err != nil {
				return 0, err
			}
			n = int64(bytes.Count(b, []byte("\n")))
			c.lines[f] = n
		}
		total += n
	}
	return total, nil
}

// readCommittedCounts returns, for every word, the counts that the
// committed part files in dir hold, in the order read.
func readCommittedCounts(t *testing.T, dir string) (map[string][]int64, int64) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no committed part files in %s (%v)", dir, err)
	}
	got := map[string][]int64{}
	var lines int64
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			w, cnt, ok := strings.Cut(sc.Text(), ",")
			n, err := strconv.ParseInt(cnt, 10, 64)
			if !ok || err != nil {
				t.Fatalf("%s: bad line %q", f, sc.Text())
			}
			got[w] = append(got[w], n)
			lines++
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	return got, lines
}

// checkExactlyOnce checks that for every word of the input the committed
// counts are exactly 1..n, n being its true count: no count missing (a lost
// record) and none twice (a duplicate). It reports the first few words
// that break this with what is wrong with them, and returns how many
// committed lines it checked.
func checkExactlyOnce(t *testing.T, dir string, in input) int64 {
	t.Helper()
	got, lines := readCommittedCounts(t, dir)
	bad := 0
	for w, n := range in.want {
		if problem := countProblem(got[w], n); problem != "" {
			bad++
			if bad <= 10 {
				t.Errorf("word %q (true count %d): %s", w, n, problem)
			}
		}
	}
	for w := range got {
		if in.want[w] == 0 {
			bad++
			t.Errorf("word %q is in the output but not in the input", w)
		}
	}
	if bad > 10 {
		t.Errorf("%d words in all are wrong", bad)
	}
	if lines != in.words || len(got) != len(in.want) {
		t.Errorf("%d committed lines for %d distinct words, want %d lines for %d words", lines, len(got), in.words, len(in.want))
	}
	return lines
}

// countProblem says what is wrong with a word's committed counts, which
// must be 1..n each once, or returns "" if nothing is.
func countProblem(counts []int64, n int64) string {
	s := slices.Clone(counts)
	slices.Sort(s)
	var missing, twice []int64
	i := 0
	for ; i < len(s) && s[i] < 1; i++ {
	}
	below := s[:i]
	for k := int64(1); k <= n; k++ {
		seen := 0
		for ; i < len(s) && s[i] == k; i++ {
			seen++
		}
		switch {
		case seen == 0:
			missing = append(missing, k)
		case seen > 1:
			twice = append(twice, k)
		}
	}
	extra := append(below, s[i:]...)
	if len(missing)+len(twice)+len(extra) == 0 {
		return ""
	}
	return fmt.Sprintf("%d counts missing %v, %d counts more than once %v, %d counts outside 1..n %v",
		len(missing), head(missing), len(twice), head(twice), len(extra), head(extra))
}

// head returns at most the first 5 elements of s.
func head(s []int64) []int64 { return s[:min(len(s), 5)] }
