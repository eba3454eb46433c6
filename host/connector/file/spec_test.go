package file_test

import (
	"testing"
	"time"

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
		switch got := job.Sink.Spec.(type) {
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
