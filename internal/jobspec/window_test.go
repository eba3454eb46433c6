package jobspec_test

import (
	"reflect"
	"testing"
	"time"

	_ "github.com/floe-stream/floe/host/connector/builtin"
	"github.com/floe-stream/floe/host/connector/file"
	. "github.com/floe-stream/floe/internal/jobspec"
)

// TestEventTimeAndWindowProblems checks the messages of mistakes in
// timestamps, watermarks and window operators.
func TestEventTimeAndWindowProblems(t *testing.T) {
	keyed := "  - {type: keyBy, uid: k, key: value}"
	for _, tt := range []struct {
		name string
		spec string
		want []string
	}{{
		name: "bad timestamp field and format",
		spec: y(okName, okSink, "source: {type: generator, uid: src, timestamps: {field: col3, format: dd-mm}}"),
		want: []string{
			`line 3: source.timestamps.field: must be csv:N or json:PATH, got "col3"`,
			`line 3: source.timestamps.format: must be unix-ms, unix-s, rfc3339 or a Go time layout`,
		},
	}, {
		name: "bad watermark durations",
		spec: y(okName, okSink, "source: {type: generator, uid: src, watermarks: {maxOutOfOrderness: soon, interval: 0s}}"),
		want: []string{
			`line 3: source.watermarks.maxOutOfOrderness: must be a duration >= 0s`,
			`line 3: source.watermarks.interval: must be a duration >= 1ms`,
		},
	}, {
		name: "window without keyBy, shape or function",
		spec: y(okName, okSource, okSink, okModule, "operators:",
			"  - {type: window, uid: w, module: wordcount}"),
		want: []string{
			`line 6: operators[0].window: required (for example {type: tumbling, size: 10s})`,
			`line 6: operators[0].aggregate: a window needs an aggregate or a process function`,
			`line 6: operators[0].type: window needs a keyBy before it`,
		},
	}, {
		name: "sliding window size not a multiple of its slide",
		spec: y(okName, okSource, okSink, okModule, "operators:", keyed,
			"  - {type: window, uid: w, module: wordcount, aggregate: f, window: {type: sliding, size: 10s, slide: 3s, gap: 1s}}"),
		want: []string{
			`line 7: operators[1].window.size: must be a multiple of the slide (3s), got 10s`,
			`line 7: operators[1].window.gap: only applies to a session window`,
		},
	}, {
		name: "both functions, lateness in processing time, window fields elsewhere",
		spec: y(okName, okSource, okSink, okModule, "operators:", keyed,
			"  - {type: window, uid: w, module: wordcount, aggregate: f, process: g, time: processing, allowedLateness: 1s, window: {type: session, gap: 5s}}",
			"  - {type: map, uid: m, module: wordcount, function: f, lateOutput: late}"),
		want: []string{
			`line 7: operators[1].allowedLateness: applies only to event-time windows`,
			`line 7: operators[1].process: a window has either an aggregate or a process function, not both`,
			`line 8: operators[2].lateOutput: only applies to a window operator`,
		},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.spec), "/specs", nil)
			if err == nil {
				t.Fatal("no error")
			}
			assertLines(t, err, tt.want)
		})
	}
}

func TestSideOutputRoutes(t *testing.T) {
	j, err := Parse([]byte(y(okName, okSource, okSink, okModule, "operators:",
		"  - type: flatMap",
		"    uid: split",
		"    module: wordcount",
		"    function: split",
		"    sideOutputs:",
		"      errors: {type: stdout}",
		"      comments:",
		"        operators: [{type: map, uid: upper, module: wordcount, function: upper}]",
		"        sink: {type: file, path: comments/}")), "/specs", nil)
	if err != nil {
		t.Fatal(err)
	}
	so := j.Operators[0].SideOutputs
	if so["errors"].Sink.Type != "stdout" || len(so["errors"].Operators) != 0 {
		t.Errorf("errors: %+v", so["errors"])
	}
	c := so["comments"]
	if len(c.Operators) != 1 || c.Operators[0].UID != "upper" || !reflect.DeepEqual(c.Sink.Spec, &file.SinkSpec{Path: "comments/"}) {
		t.Errorf("comments: %+v", c)
	}
	_, err = Parse([]byte(y(okName, okSource, okSink, okModule, "operators:",
		"  - type: flatMap",
		"    uid: split",
		"    module: wordcount",
		"    function: split",
		"    sideOutputs:",
		"      a: {operators: [{type: keyBy, uid: k, key: value}]}",
		"      b: {type: file, path: b/, operators: [{type: map, uid: split, module: wordcount, function: f}], sink: {type: stdout}}")), "/specs", nil)
	if err == nil {
		t.Fatal("no error")
	}
	assertLines(t, err, []string{
		`line 11: operators[0].sideOutputs.a.operators[0].type: a side output's operators are map, filter or flatMap, not keyBy`,
		`line 11: operators[0].sideOutputs.a.sink: required after operators`,
		`line 12: operators[0].sideOutputs.b.type: only applies to a sink (put it under sink:)`,
		`line 12: operators[0].sideOutputs.b.path: only applies to a sink (put it under sink:)`,
		`line 12: operators[0].sideOutputs.b.operators[0].uid: "split" is already used by operators[0]`,
	})
}

func TestWindowSpec(t *testing.T) {
	j, err := Parse([]byte(y(okName, okSink, okModule,
		"source: {type: file, uid: src, path: in, timestamps: {field: \"json:e.t\", format: rfc3339}, watermarks: {maxOutOfOrderness: 2s, idleTimeout: 1m}}",
		"operators:", "  - {type: keyBy, uid: k, key: value}",
		"  - {type: window, uid: w, module: wordcount, process: p, window: {type: sliding, size: 10s, slide: 2s}, allowedLateness: 1s, lateOutput: late, sideOutputs: {late: {type: file, path: late/}}}")), "/specs", nil)
	if err != nil {
		t.Fatal(err)
	}
	et := j.Sources[0].EventTime
	if et.Field.JSON != "e.t" || et.Format != "rfc3339" || et.MaxOutOfOrderness != 2*time.Second || et.IdleTimeout != time.Minute || et.Interval != DefaultWatermarkInterval {
		t.Errorf("event time %+v", et)
	}
	w := j.Operators[1]
	if w.Function != "p" || w.Window.Aggregate || w.Window.Kind != "sliding" || w.Window.Size != 10*time.Second ||
		w.Window.Slide != 2*time.Second || w.Window.AllowedLateness != time.Second || w.Window.LateOutput != "late" {
		t.Errorf("window %+v %+v", w, w.Window)
	}
	if s := w.SideOutputs["late"].Sink; s.Type != "file" || !reflect.DeepEqual(s.Spec, &file.SinkSpec{Path: "late/"}) {
		t.Errorf("side outputs %+v", w.SideOutputs)
	}
}
