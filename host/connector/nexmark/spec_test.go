package nexmark_test

import (
	"reflect"
	"testing"
	"time"

	_ "github.com/floe-stream/floe/host/connector/builtin"
	"github.com/floe-stream/floe/host/connector/nexmark"
	"github.com/floe-stream/floe/host/connector/ratelimit"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/jobspec/jobspectest"
)

func TestParseNexmarkSource(t *testing.T) {
	tests := []struct {
		source string
		want   nexmark.Spec
	}{
		{"{type: nexmark, uid: bids}", nexmark.Spec{EventsPerSecond: 10_000, Stream: "all"}},
		{"{type: nexmark, uid: bids, count: 1000000, rate: 2500.5, eventsPerSecond: 1000, seed: 7, stream: bids}",
			nexmark.Spec{Count: 1_000_000, Rate: 2500.5, EventsPerSecond: 1000, Seed: 7, Stream: "bids"}},
		{"{type: nexmark, uid: bids, eventsPerSecond: 1000000000}", nexmark.Spec{EventsPerSecond: 1_000_000_000, Stream: "all"}},
		{"{type: nexmark, uid: p, stream: persons}", nexmark.Spec{EventsPerSecond: 10_000, Stream: "persons"}},
		{"{type: nexmark, uid: a, stream: auctions}", nexmark.Spec{EventsPerSecond: 10_000, Stream: "auctions"}},
		{"{type: nexmark, uid: a, stream: all}", nexmark.Spec{EventsPerSecond: 10_000, Stream: "all"}},
		{"{type: nexmark, uid: bids, rate: [{for: 30s, rate: 2000}, {for: 1m, rate: 20000}]}", nexmark.Spec{EventsPerSecond: 10_000, Stream: "all",
			Schedule: ratelimit.Schedule{{For: 30 * time.Second, Rate: 2000}, {For: time.Minute, Rate: 20000}}}},
	}
	for _, tt := range tests {
		job, err := jobspec.Parse([]byte("name: j\nsink: {type: stdout, uid: o}\nsource: "+tt.source), "", nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.source, err)
		}
		s := job.Sources[0]
		if got, ok := s.Spec.(*nexmark.Spec); s.Type != "nexmark" || !ok || !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("%s: source %+v with nexmark %+v, want %+v", tt.source, s, s.Spec, tt.want)
		}
		if got, want := s.Bounded(), tt.want.Count > 0; got != want {
			t.Errorf("%s: Bounded() = %v, want %v", tt.source, got, want)
		}
	}
}

// TestNexmarkSourceKeepsItsTimestamps checks that a nexmark source may have
// watermarks without a timestamps section: its records carry their event
// times, which the task keeps when no field is named.
func TestNexmarkSourceKeepsItsTimestamps(t *testing.T) {
	spec := jobspectest.Spec(okName, "source:", "  {type: nexmark, uid: events, count: 100, watermarks: {maxOutOfOrderness: 1s}}", okSink)
	job, err := jobspec.Parse([]byte(spec), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	et := job.Sources[0].EventTime
	if et == nil || !et.Field.IsZero() || et.MaxOutOfOrderness != time.Second {
		t.Errorf("event time = %+v, want the source's own timestamps and 1s out of orderness", et)
	}
}

func TestNexmarkSourceProblems(t *testing.T) {
	tests := []struct {
		name, source string
		want         []string
	}{{
		name:   "negative count",
		source: "{type: nexmark, uid: n, count: -1}",
		want:   []string{`source.count: must be an integer >= 0, got "-1"`},
	}, {
		name:   "rate not a number",
		source: "{type: nexmark, uid: n, rate: fast}",
		want:   []string{`source.rate: must be a number >= 0, got "fast"`},
	}, {
		name:   "eventsPerSecond zero",
		source: "{type: nexmark, uid: n, eventsPerSecond: 0}",
		want:   []string{`source.eventsPerSecond: must be an integer from 1 to 1000000000, got "0"`},
	}, {
		name:   "eventsPerSecond too high",
		source: "{type: nexmark, uid: n, eventsPerSecond: 1000000001}",
		want:   []string{`source.eventsPerSecond: must be an integer from 1 to 1000000000, got "1000000001"`},
	}, {
		name:   "eventsPerSecond a fraction",
		source: "{type: nexmark, uid: n, eventsPerSecond: 0.5}",
		want:   []string{`source.eventsPerSecond: must be an integer from 1 to 1000000000, got "0.5"`},
	}, {
		name:   "negative seed",
		source: "{type: nexmark, uid: n, seed: -3}",
		want:   []string{`source.seed: must be an integer >= 0, got "-3"`},
	}, {
		name:   "unknown stream",
		source: "{type: nexmark, uid: n, stream: people}",
		want:   []string{`source.stream: unknown nexmark stream "people" (want all, persons, auctions or bids)`},
	}, {
		name:   "fields of other sources",
		source: "{type: nexmark, uid: n, path: in.txt, follow: true, kind: random, keys: 3, size: 9}",
		want: []string{
			`source.path: only applies to a file source`,
			`source.follow: only applies to a file source`,
			`source.kind: only applies to a generator source`,
			`source.keys: only applies to a generator source`,
			`source.size: only applies to a generator source`,
		},
	}, {
		name:   "nexmark fields on a generator",
		source: "{type: generator, uid: g, eventsPerSecond: 5, seed: 1, stream: bids}",
		want: []string{
			`source.eventsPerSecond: only applies to a nexmark source`,
			`source.seed: only applies to a nexmark source`,
			`source.stream: only applies to a nexmark source`,
		},
	}, {
		name:   "nexmark fields on a file source",
		source: "{type: file, uid: f, path: in.txt, seed: 1}",
		want:   []string{`source.seed: only applies to a nexmark source`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jobspec.Parse([]byte(jobspectest.Spec(okName, "source: "+tt.source, okSink)), "", nil)
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			jobspectest.AssertLines(t, err, tt.want)
		})
	}
}

// Valid lines that the cases above build on.
const (
	okName = "name: j"
	okSink = "sink: {type: stdout, uid: out}"
)
