package minicluster

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/textgen"
)

// wordcount returns a submission of udfs/wordcount/job.yaml, with extra
// YAML appended to the spec and its module built from source into dir.
func wordcount(t testing.TB, dir, input, output, extra string, parallelism int) api.Submission {
	t.Helper()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := wasmbuild.Go(filepath.Join(root, "udfs", "wordcount"), dir)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile(filepath.Join(root, "udfs", "wordcount", "job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return api.Submission{
		Spec:        append(spec, extra...),
		Params:      map[string]string{"input": input, "output": output},
		Parallelism: parallelism,
		Modules:     map[string][]byte{"wordcount": mod},
	}
}

// maxCounts reads "word,count" part files and keeps each word's largest
// count.
func maxCounts(t testing.TB, dir string) map[string]int64 {
	t.Helper()
	got, err := textgen.MaxCounts(dir)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// runJob runs a submission on a fresh mini-cluster to its end and returns
// its final status and how long it took, start-up included.
func runJob(t testing.TB, cfg Config, sub api.Submission) (api.JobStatus, time.Duration) {
	t.Helper()
	start := time.Now()
	c, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	id, err := c.Scheduler.Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	for {
		st, err := c.Scheduler.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if api.Terminal(st.State) {
			return st, time.Since(start)
		}
		time.Sleep(10 * time.Millisecond)
	}
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
	engine, err := udf.NewEngine(context.Background(), udf.Config{CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close(context.Background())
	for _, tc := range []struct {
		parallelism, taskManagers, slots int
		backend                          string
	}{{1, 1, 1, "pebble"}, {4, 1, 4, "pebble"}, {4, 2, 2, "memory"}, {3, 3, 2, "pebble"}} {
		name := fmt.Sprintf("p%d-tm%d-%s", tc.parallelism, tc.taskManagers, tc.backend)
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+name)
			sub := wordcount(t, dir, input, out, "\nstate: {backend: "+tc.backend+"}\n", tc.parallelism)
			st, _ := runJob(t, Config{DataDir: filepath.Join(dir, name), TaskManagers: tc.taskManagers, Slots: tc.slots, Engine: engine}, sub)
			if st.State != api.JobFinished {
				t.Fatalf("job %s: %s", st.State, st.Message)
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
			if out := st.Vertices[len(st.Vertices)-1].RecordsOut; out != total {
				t.Errorf("%d records out, want one per word: %d", out, total)
			}
		})
	}
}

// BenchmarkWordCount runs the wordcount example over 2M words at
// parallelism 2 on a mini-cluster and reports words/s, start-up included.
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
	engine, err := udf.NewEngine(context.Background(), udf.Config{CacheDir: filepath.Join(dir, "cache"), Uninterruptible: os.Getenv("FLOE_UNINTERRUPTIBLE") != ""})
	if err != nil {
		b.Fatal(err)
	}
	defer engine.Close(context.Background())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sub := wordcount(b, dir, input, filepath.Join(dir, "out"), "", 2)
		st, d := runJob(b, Config{DataDir: filepath.Join(dir, strconv.Itoa(i)), Slots: 2, Engine: engine}, sub)
		if st.State != api.JobFinished {
			b.Fatalf("job %s: %s", st.State, st.Message)
		}
		b.ReportMetric(float64(st.Vertices[len(st.Vertices)-1].RecordsOut)/d.Seconds(), "words/s")
	}
}
