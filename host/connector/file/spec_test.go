package file_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
	_ "github.com/floe-stream/floe/host/connector/builtin"
	"github.com/floe-stream/floe/host/connector/file"
	"github.com/floe-stream/floe/host/connector/stdout"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/jobspec/jobspectest"
)

// Valid lines that the cases below build on.
const (
	okName   = "name: j"
	okSource = "source: {type: file, uid: in, path: in.txt}"
)

func TestParseSinkFlushInterval(t *testing.T) {
	tests := []struct {
		sink string
		want jobspec.SinkSpec
	}{
		{"{type: file, uid: out, path: out/}", &file.SinkSpec{Path: "out/"}},
		{"{type: file, uid: out, path: out/, flushInterval: 250ms}", &file.SinkSpec{Path: "out/", FlushInterval: 250 * time.Millisecond}},
		{"{type: stdout, uid: out}", &stdout.Spec{}},
		{"{type: stdout, uid: out, flushInterval: 1ms}", &stdout.Spec{FlushInterval: time.Millisecond}},
	}
	for _, tt := range tests {
		job, err := jobspec.Parse([]byte(jobspectest.Spec(okName, okSource, "sink: "+tt.sink)), "", nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.sink, err)
		}
		switch got := job.Sinks[0].Spec.(type) {
		case *file.SinkSpec:
			if want, ok := tt.want.(*file.SinkSpec); !ok || *got != *want {
				t.Errorf("%s: sink %+v, want %+v", tt.sink, got, tt.want)
			}
		case *stdout.Spec:
			if want, ok := tt.want.(*stdout.Spec); !ok || *got != *want {
				t.Errorf("%s: sink %+v, want %+v", tt.sink, got, tt.want)
			}
		default:
			t.Errorf("%s: sink spec %T", tt.sink, got)
		}
	}
}

func TestSinkFlushIntervalProblems(t *testing.T) {
	tests := []struct {
		name string
		sink []string
		want []string
	}{{
		name: "zero",
		sink: []string{"sink:", "  type: file", "  uid: out", "  path: out/", "  flushInterval: 0s"},
		want: []string{`line 7: sink.flushInterval: must be a duration >= 1ms such as 10s or 1m30s, got "0s"`},
	}, {
		name: "not a duration",
		sink: []string{"sink:", "  type: stdout", "  uid: out", "  flushInterval: often"},
		want: []string{`line 6: sink.flushInterval: must be a duration >= 1ms such as 10s or 1m30s, got "often"`},
	}, {
		name: "on a kafka sink",
		sink: []string{"sink: {type: kafka, uid: out, brokers: k:9092, topic: t, flushInterval: 1s}"},
		want: []string{`line 3: sink.flushInterval: only applies to a file or stdout sink`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := jobspectest.Spec(append([]string{okName, okSource}, tt.sink...)...)
			_, err := jobspec.Parse([]byte(spec), "", nil)
			jobspectest.AssertLines(t, err, tt.want)
		})
	}
}

// TestFollowSourceSaysOneSubtaskReads opens the subtasks of file sources
// through their specs and checks that a followed file with more than one
// subtask is said, once, to be read by one of them.
func TestFollowSourceSaysOneSubtaskReads(t *testing.T) {
	input := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(input, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		follow      bool
		parallelism int
		warnings    int
	}{
		{follow: true, parallelism: 3, warnings: 1},
		{follow: true, parallelism: 1, warnings: 0},
		{follow: false, parallelism: 3, warnings: 0},
	}
	for _, tt := range tests {
		var logs bytes.Buffer
		env := connector.Env{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
		spec := &file.SourceSpec{Path: input, Follow: tt.follow}
		for i := range tt.parallelism {
			src, err := spec.OpenSource(connector.SplitInfo{Subtask: i, Parallelism: tt.parallelism}, env)
			if err != nil {
				t.Fatal(err)
			}
			if err := src.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if got := strings.Count(logs.String(), "level=WARN msg=\""+file.FollowNote); got != tt.warnings {
			t.Errorf("follow %v at parallelism %d: %d warnings, want %d:\n%s", tt.follow, tt.parallelism, got, tt.warnings, logs.String())
		}
	}
}
