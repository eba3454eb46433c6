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

func TestParseSinkBuckets(t *testing.T) {
	tests := []struct {
		sink string
		want file.Buckets
	}{
		{"{type: file, uid: out, path: out/}", file.Buckets{}},
		{`{type: file, uid: out, path: out/, buckets: {format: "dt=2006-01-02/hm=15:04"}}`,
			file.Buckets{Format: "dt=2006-01-02/hm=15:04", MaxOpen: file.DefaultMaxOpenBuckets}},
		{`{type: file, uid: out, path: out/, buckets: {format: "2006/01/02/15", maxOpen: 3}}`,
			file.Buckets{Format: "2006/01/02/15", MaxOpen: 3}},
	}
	for _, tt := range tests {
		job, err := jobspec.Parse([]byte(jobspectest.Spec(okName, okSource, "sink: "+tt.sink)), "", nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.sink, err)
		}
		if got := job.Sinks[0].Spec.(*file.SinkSpec).Buckets; got != tt.want {
			t.Errorf("%s: buckets %+v, want %+v", tt.sink, got, tt.want)
		}
	}
}

func TestSinkBucketsProblems(t *testing.T) {
	tests := []struct {
		name string
		sink []string
		want []string
	}{{
		name: "no format",
		sink: []string{"sink:", "  type: file", "  uid: out", "  path: out/", "  buckets: {maxOpen: 4}"},
		want: []string{`line 7: sink.buckets.format: required`},
	}, {
		name: "format outside the directory",
		sink: []string{"sink:", "  type: file", "  uid: out", "  path: out/", "  buckets:", `    format: "../2006"`},
		want: []string{`line 8: sink.buckets.format: must be a Go time layout such as "dt=2006-01-02/hm=15:04" that gives a relative path: bucket format "../2006" gives "../2024", not a relative path inside the sink's directory`},
	}, {
		name: "max open out of range",
		sink: []string{"sink:", "  type: file", "  uid: out", "  path: out/", "  buckets:", `    format: "2006"`, "    maxOpen: 0"},
		want: []string{`line 9: sink.buckets.maxOpen: must be an integer from 1 to 1024, got "0"`},
	}, {
		name: "unknown field",
		sink: []string{"sink:", "  type: file", "  uid: out", "  path: out/", "  buckets:", `    format: "2006"`, "    time: processing"},
		want: []string{`line 9: sink.buckets.time: unknown field (known fields: format, maxOpen)`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := jobspectest.Spec(append([]string{okName, okSource}, tt.sink...)...)
			_, err := jobspec.Parse([]byte(spec), "", nil)
			jobspectest.AssertLines(t, err, tt.want)
		})
	}
}
