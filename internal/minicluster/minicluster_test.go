package localrun

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/tests/textgen"
)

// wordcountJob loads udfs/wordcount/job.yaml with its module built from
// source into dir.
func wordcountJob(t testing.TB, dir, input, output string, set map[string]string) *jobspec.Job {
	t.Helper()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := wasmbuild.Go(filepath.Join(root, "udfs", "wordcount"), dir)
	if err != nil {
		t.Fatal(err)
	}
	// The spec names its module relative to itself.
	spec := filepath.Join(filepath.Dir(wasm), "job.yaml")
	b, err := os.ReadFile(filepath.Join(root, "udfs", "wordcount", "job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, b, 0o644); err != nil {
		t.Fatal(err)
	}
	params := map[string]string{"input": input, "output": output}
	for k, v := range set {
		params[k] = v
	}
	job, err := jobspec.Load(spec, params)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// maxCounts reads "word,count" part files and keeps each word's largest
// count.
func maxCounts(t testing.TB, dir string) map[string]int64 {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no part files in %s (%v)", dir, err)
	}
	got := map[string]int64{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			w, c, ok := strings.Cut(sc.Text(), ",")
			n, err := strconv.ParseInt(c, 10, 64)
			if !ok || err != nil {
				t.Fatalf("%s: bad line %q", f, sc.Text())
			}
			got[w] = max(got[w], n)
		}
		fh.Close()
	}
	return got
}

func TestWordCountMatchesAnIndependentCount(t *testing.T) {
	dir := t.TempDir()
	var text bytes.Buffer
	if err := textgen.Write(&text, 250_000, 7); err != nil {
		t.Fatal(err)
	}
	if text.Len() < 1<<20 {
		t.Fatalf("generated only %d bytes", text.Len())
	}
	input := filepath.Join(dir, "input.txt")
	if err := os.WriteFile(input, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := textgen.Count(text.Bytes())
	engine, err := host.NewEngine(context.Background(), host.Config{CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close(context.Background())
	for _, tc := range []struct {
		parallelism int
		backend     string
	}{{1, "pebble"}, {4, "pebble"}, {4, "memory"}} {
		t.Run(fmt.Sprintf("p%d-%s", tc.parallelism, tc.backend), func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprintf("out-%d-%s", tc.parallelism, tc.backend))
			job := wordcountJob(t, dir, input, out, nil)
			job.State.Backend = jobspec.StateBackend(tc.backend)
			if err := job.WithParallelism(tc.parallelism); err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), job, Options{Engine: engine, DataDir: filepath.Join(dir, "data", t.Name())})
			if err != nil {
				t.Fatal(err)
			}
			got := maxCounts(t, out)
			var total int64
			for w, n := range want {
				total += n
				if got[w] != n {
					t.Errorf("word %q: counted %d, want %d", w, got[w], n)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d distinct words in the output, want %d", len(got), len(want))
			}
			if res.RecordsOut != total {
				t.Errorf("%d records out, want one per word: %d", res.RecordsOut, total)
			}
		})
	}
}

// BenchmarkWordCount runs the wordcount example over 2M words at
// parallelism 2 and reports words/s, start-up included.
func BenchmarkWordCount(b *testing.B) {
	dir := b.TempDir()
	input := filepath.Join(dir, "input.txt")
	f, err := os.Create(input)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := textgen.Write(w, 2_000_000, 1); err != nil {
		b.Fatal(err)
	}
	w.Flush()
	f.Close()
	engine, err := host.NewEngine(context.Background(), host.Config{CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		b.Fatal(err)
	}
	defer engine.Close(context.Background())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := filepath.Join(dir, "out")
		job := wordcountJob(b, dir, input, out, nil)
		if err := job.WithParallelism(2); err != nil {
			b.Fatal(err)
		}
		res, err := Run(context.Background(), job, Options{Engine: engine, DataDir: filepath.Join(dir, "data", strconv.Itoa(i))})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.RecordsOut)/res.Duration.Seconds(), "words/s")
	}
}
