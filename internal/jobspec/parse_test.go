package jobspec_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/floe-stream/floe/host/connector/builtin"
	"github.com/floe-stream/floe/host/connector/file"
	"github.com/floe-stream/floe/host/connector/generator"
	"github.com/floe-stream/floe/host/connector/stdout"
	. "github.com/floe-stream/floe/internal/jobspec"
)

// testdataDir returns the absolute path of testdata, against which the specs
// there resolve their module paths.
func testdataDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadValidSpecs(t *testing.T) {
	dir := testdataDir(t)
	wordcount := func(rate float64, follow bool, params map[string]string) *Job {
		return &Job{
			Name:           "wordcount",
			Parallelism:    2,
			MaxParallelism: 128,
			Params:         params,
			Modules:        map[string]string{"wordcount": filepath.Join(dir, "wordcount.wasm")},
			Sources: []Source{{Type: "file", UID: "lines", Spec: &file.SourceSpec{
				Path: "/data/in.txt", Rate: rate, Follow: follow,
			}}},
			Operators: []Operator{
				{Type: OperatorFlatMap, UID: "split", Inputs: []string{"lines"}, Module: "wordcount", Function: "split"},
				{Type: OperatorKeyBy, UID: "by-word", Inputs: []string{"split"}, Key: KeySelector{Kind: KeyValue}},
				{Type: OperatorProcess, UID: "count", Inputs: []string{"by-word"}, Module: "wordcount", Function: "count"},
			},
			Sinks:           []Sink{{Type: "file", UID: "out", Inputs: []string{"count"}, Spec: &file.SinkSpec{Path: "out/counts"}}},
			RestartStrategy: RestartStrategy{Type: RestartNone, Default: true},
			State:           State{Backend: StatePebble},
		}
	}
	io := map[string]string{"input": "/data/in.txt", "output": "out/counts"}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name string
		file string
		set  map[string]string
		want *Job
	}{{
		name: "wordcount with params defaults",
		file: "wordcount.yaml",
		set:  io,
		want: wordcount(0, false, with(io, "rate", "0", "follow", "false")),
	}, {
		name: "wordcount with params overridden",
		file: "wordcount.yaml",
		set:  with(io, "rate", "12.5", "follow", "true"),
		want: wordcount(12.5, true, with(io, "rate", "12.5", "follow", "true")),
	}, {
		name: "random generator with defaults",
		file: "generator.yaml",
		want: &Job{
			Name:           "bench.random",
			Parallelism:    1,
			MaxParallelism: 128,
			Params:         map[string]string{"count": "1000000"},
			Modules:        map[string]string{"text": filepath.Join(filepath.Dir(filepath.Dir(dir)), "udfs", "text.wasm")},
			Sources: []Source{{Type: "generator", UID: "gen", Spec: &generator.Spec{
				Count: 1000000, Rate: 2500.5, Kind: generator.KindRandom, Keys: 1000, Size: 16,
			}}},
			Operators: []Operator{
				{Type: OperatorKeyBy, UID: "by-first", Inputs: []string{"gen"}, Key: KeySelector{Kind: KeyCSV, Field: 0}},
				{Type: OperatorMap, UID: "upper", Inputs: []string{"by-first"}, Module: "text", Function: "upper"},
			},
			Sinks:           []Sink{{Type: "stdout", UID: "print", Inputs: []string{"upper"}, Spec: &stdout.Spec{}}},
			RestartStrategy: RestartStrategy{Type: RestartNone, Default: true},
			State:           State{Backend: StatePebble},
		},
	}, {
		name: "every section explicit",
		file: "full.yaml",
		set:  map[string]string{"output": "/tmp/out"},
		want: &Job{
			Name:           "sessions",
			Parallelism:    4,
			MaxParallelism: 256,
			Params:         map[string]string{"checkpointEvery": "30s", "output": "/tmp/out"},
			Modules: map[string]string{
				"sessions": filepath.Join(dir, "wasm", "sessions.wasm"),
				"keys":     "/opt/floe/keys.wasm",
			},
			Sources: []Source{{Type: "generator", UID: "clicks", Parallelism: 1, Spec: &generator.Spec{
				Kind: generator.KindSequence,
			}}},
			Operators: []Operator{
				{Type: OperatorFilter, UID: "only-even", Inputs: []string{"clicks"}, Module: "sessions", Function: "even"},
				{Type: OperatorKeyBy, UID: "by-user", Inputs: []string{"only-even"}, Parallelism: 8, Module: "keys", Function: "user", Key: KeySelector{Kind: KeyFunction}},
				{Type: OperatorProcess, UID: "sessionize", Inputs: []string{"by-user"}, Module: "sessions", Function: "sessionize"},
			},
			Sinks:           []Sink{{Type: "file", UID: "sessions-out", Inputs: []string{"sessionize"}, Parallelism: 2, Spec: &file.SinkSpec{Path: "/tmp/out/sessions"}}},
			RestartStrategy: RestartStrategy{Type: RestartFixedDelay, Attempts: 5, Delay: 2 * time.Second},
			State:           State{Backend: StateMemory},
			Checkpoints: &Checkpoints{
				Interval: 30 * time.Second, Timeout: time.Minute, MinPause: 500 * time.Millisecond, MaxConcurrent: 2, Retain: 3,
			},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Load(filepath.Join(dir, tt.file), tt.set)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			assertJob(t, got, tt.want)
		})
	}
}

func TestParseFillsDefaults(t *testing.T) {
	spec := `
name: minimal
source: {type: generator, uid: src}
sink: {type: stdout, uid: out}
`
	got, err := Parse([]byte(spec), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	assertJob(t, got, &Job{
		Name:            "minimal",
		Parallelism:     1,
		MaxParallelism:  128,
		Params:          map[string]string{},
		Modules:         map[string]string{},
		Sources:         []Source{{Type: "generator", UID: "src", Spec: &generator.Spec{Kind: generator.KindSequence}}},
		Operators:       []Operator{},
		Sinks:           []Sink{{Type: "stdout", UID: "out", Inputs: []string{"src"}, Spec: &stdout.Spec{}}},
		RestartStrategy: RestartStrategy{Type: RestartNone, Default: true},
		State:           State{Backend: StatePebble},
	})
}

func TestParseAppliesSectionDefaults(t *testing.T) {
	spec := `
name: defaults
source: {type: generator, uid: src, kind: random}
sink: {type: stdout, uid: out}
restartStrategy: {type: fixedDelay}
state: {}
checkpoints: {interval: 10s}
`
	got, err := Parse([]byte(spec), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (generator.Spec{Kind: generator.KindRandom, Keys: 1000, Size: 16}); !reflect.DeepEqual(*got.Sources[0].Spec.(*generator.Spec), want) {
		t.Errorf("generator = %+v, want %+v", *got.Sources[0].Spec.(*generator.Spec), want)
	}
	if want := (RestartStrategy{Type: RestartFixedDelay, Attempts: 1, Delay: time.Second}); got.RestartStrategy != want {
		t.Errorf("restartStrategy = %+v, want %+v", got.RestartStrategy, want)
	}
	if got.State.Backend != StatePebble {
		t.Errorf("state.backend = %q, want pebble", got.State.Backend)
	}
	if want := (Checkpoints{Interval: 10 * time.Second, Timeout: 10 * time.Minute, MaxConcurrent: 1, Retain: 3}); *got.Checkpoints != want {
		t.Errorf("checkpoints = %+v, want %+v", *got.Checkpoints, want)
	}
}

// TestParseDefaultRestart checks which restart strategy a spec that names
// none gets: none without checkpoints, exponentialDelay with them, also
// when --checkpoint-interval turns them on; a named strategy stays.
// TestParseReadableBy checks which queryable states state.readableBy
// opens to viewers.
func TestParseReadableBy(t *testing.T) {
	tests := []struct {
		state string
		want  []string
	}{
		{"", nil},
		{"state: {backend: memory}", nil},
		{"state: {readableBy: {counts: viewer}}", []string{"counts"}},
		{"state: {readableBy: {totals: viewer, counts: viewer, secret: operator}}", []string{"counts", "totals"}},
		{"state: {readableBy: {secret: operator}}", nil},
	}
	for _, tt := range tests {
		got, err := Parse([]byte("name: j\nsource: {type: generator, uid: src}\nsink: {type: stdout, uid: out}\n"+tt.state+"\n"), "", nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.state, err)
		}
		if !slices.Equal(got.State.OpenToViewers, tt.want) {
			t.Errorf("%s: OpenToViewers = %q, want %q", tt.state, got.State.OpenToViewers, tt.want)
		}
		for _, name := range []string{"counts", "totals", "secret", "other"} {
			if open := got.State.OpenToViewer(name); open != slices.Contains(tt.want, name) {
				t.Errorf("%s: OpenToViewer(%q) = %v", tt.state, name, open)
			}
		}
	}
}

func TestParseDefaultRestart(t *testing.T) {
	exponential := RestartStrategy{Type: RestartExponentialDelay, InitialBackoff: time.Second,
		MaxBackoff: time.Minute, ResetAfter: time.Hour, Default: true}
	none := RestartStrategy{Type: RestartNone, Default: true}
	tests := []struct {
		name, extra string
		interval    time.Duration
		want        RestartStrategy
	}{
		{"no checkpoints", "", 0, none},
		{"checkpoints", "checkpoints: {interval: 10s}", 0, exponential},
		{"checkpoints from the flag", "", time.Second, exponential},
		{"explicit none", "restartStrategy: {type: none}\ncheckpoints: {interval: 10s}", time.Second, RestartStrategy{Type: RestartNone}},
		{"explicit fixed delay", "restartStrategy: {type: fixedDelay}", time.Second, RestartStrategy{Type: RestartFixedDelay, Attempts: 1, Delay: time.Second}},
		{"explicit exponential", "restartStrategy: {type: exponentialDelay, initialBackoff: 100ms, maxBackoff: 2s, resetAfter: 10m}", 0,
			RestartStrategy{Type: RestartExponentialDelay, InitialBackoff: 100 * time.Millisecond, MaxBackoff: 2 * time.Second, ResetAfter: 10 * time.Minute}},
		{"exponential defaults", "restartStrategy: {type: exponentialDelay}", 0,
			RestartStrategy{Type: RestartExponentialDelay, InitialBackoff: time.Second, MaxBackoff: time.Minute, ResetAfter: time.Hour}},
		{"maxBackoff follows a larger initialBackoff", "restartStrategy: {type: exponentialDelay, initialBackoff: 2m}", 0,
			RestartStrategy{Type: RestartExponentialDelay, InitialBackoff: 2 * time.Minute, MaxBackoff: 2 * time.Minute, ResetAfter: time.Hour}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := "name: j\nsource: {type: generator, uid: src}\nsink: {type: stdout, uid: out}\n" + tt.extra + "\n"
			got, err := Parse([]byte(spec), "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.interval != 0 {
				if err := got.WithCheckpointInterval(tt.interval); err != nil {
					t.Fatal(err)
				}
			}
			if got.RestartStrategy != tt.want {
				t.Errorf("restartStrategy = %+v, want %+v", got.RestartStrategy, tt.want)
			}
		})
	}
}

func TestRestartBackoff(t *testing.T) {
	rs := RestartStrategy{Type: RestartExponentialDelay, InitialBackoff: time.Second, MaxBackoff: time.Minute}
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second,
		6: 32 * time.Second, 7: time.Minute, 100: time.Minute} {
		if got := rs.Backoff(n); got != want {
			t.Errorf("Backoff(%d) = %v, want %v", n, got, want)
		}
	}
	huge := RestartStrategy{InitialBackoff: time.Hour, MaxBackoff: 1<<63 - 1}
	if got := huge.Backoff(200); got != huge.MaxBackoff {
		t.Errorf("Backoff(200) with no practical cap = %v, want the cap %v", got, huge.MaxBackoff)
	}
}

func TestSourceBounded(t *testing.T) {
	tests := []struct {
		source string
		want   bool
	}{
		{"{type: file, uid: s, path: in.txt}", true},
		{"{type: file, uid: s, path: in.txt, follow: true}", false},
		{"{type: generator, uid: s, count: 10}", true},
		{"{type: generator, uid: s}", false},
	}
	for _, tt := range tests {
		job, err := Parse([]byte("name: j\nsink: {type: stdout, uid: o}\nsource: "+tt.source), "", nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.source, err)
		}
		if got := job.Sources[0].Bounded(); got != tt.want {
			t.Errorf("%s: Bounded() = %v, want %v", tt.source, got, tt.want)
		}
	}
}

func assertJob(t *testing.T, got, want *Job) {
	t.Helper()
	if len(got.Operators) == 0 && len(want.Operators) == 0 {
		got.Operators, want.Operators = nil, nil
	}
	// NB: where the spec names functions is checked by TestCheckFunctions.
	ForgetCalls(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("job mismatch\n got: %s\nwant: %s", dump(got), dump(want))
	}
}

// dump prints a job with its pointer fields followed, for failure messages.
func dump(j *Job) string {
	return fmt.Sprintf("%+v\n  sources=%+v sinks=%+v checkpoints=%s",
		*j, j.Sources, j.Sinks, show(j.Checkpoints))
}

func show[T any](p *T) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprintf("%+v", *p)
}

func TestWithOperatorParallelism(t *testing.T) {
	job, err := Load("testdata/full.yaml", map[string]string{"output": "/tmp/out"})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.WithOperatorParallelism(job.Operators[0].UID, 3); err != nil || job.OperatorParallelism(0) != 3 {
		t.Fatalf("operator 0: %v, parallelism %d", err, job.OperatorParallelism(0))
	}
	if err := job.WithOperatorParallelism(job.Sinks[0].UID, 2); err != nil || job.SinkParallelism(0) != 2 {
		t.Fatalf("sink: %v, parallelism %d", err, job.SinkParallelism(0))
	}
	if err := job.WithOperatorParallelism("no-such-uid", 2); err == nil {
		t.Fatal("unknown uid accepted")
	}
	if err := job.WithOperatorParallelism(job.Sinks[0].UID, job.MaxParallelism+1); err == nil {
		t.Fatal("parallelism above maxParallelism accepted")
	}
}

// TestRateSchedule checks a generator's rate as a list of steps.
func TestRateSchedule(t *testing.T) {
	job, err := Parse([]byte("name: j\nsource: {type: generator, uid: src, rate: [{for: 30s, rate: 20000}, {for: 1m, rate: 2e5}]}\n"+
		"sink: {type: stdout, uid: out}\n"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	g := job.Sources[0].Spec.(*generator.Spec)
	want := []RateStep{{For: 30 * time.Second, Rate: 20000}, {For: time.Minute, Rate: 200000}}
	if g.Rate != 0 || !reflect.DeepEqual(g.Schedule, want) || g.ConfiguredRate() != 0 {
		t.Errorf("got rate %g schedule %+v, want %+v", g.Rate, g.Schedule, want)
	}
}

// TestAutoscaler checks the autoscaler: section of a spec and on its own,
// as PUT /v1/jobs/{id}/autoscaler sends it.
func TestAutoscaler(t *testing.T) {
	job, err := Parse([]byte("name: j\nsource: {type: generator, uid: src}\nsink: {type: stdout, uid: out}\n"+
		"autoscaler: {enabled: true, minParallelism: 2, maxScaleDownFactor: 2, cooldown: 1m}\n"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Autoscaler{Enabled: true, MinParallelism: 2, TargetUtilization: 0.7, Stabilization: time.Minute,
		Cooldown: time.Minute, MaxScaleDownFactor: 2, Interval: 10 * time.Second}
	if !reflect.DeepEqual(job.Autoscaler, want) {
		t.Errorf("spec: got %+v, want %+v", job.Autoscaler, want)
	}
	tests := []struct {
		body    string
		want    Autoscaler
		wantErr string
	}{
		{`{"enabled": true, "targetUtilization": 0.5, "stabilization": "30s", "catchUp": "5m", "maxLag": "20s", "maxBacklog": 100000}`,
			Autoscaler{Enabled: true, TargetUtilization: 0.5, Stabilization: 30 * time.Second, Cooldown: 30 * time.Second,
				CatchUp: 5 * time.Minute, Interval: 10 * time.Second, MaxLag: 20 * time.Second, MaxBacklog: 100000}, ""},
		{`{"maxBacklog": -1}`, Autoscaler{}, `autoscaler: line 1: maxBacklog: must be an integer >= 0, got "-1"`},
		{`{}`, Autoscaler{}.WithDefaults(), ""},
		{`{"schedule": [{"from": "08:00", "to": "20:00", "minParallelism": 4}, {"from": "23:30", "to": "01:00", "maxParallelism": 2}]}`,
			Autoscaler{TargetUtilization: 0.7, Stabilization: time.Minute, Cooldown: 30 * time.Second, Interval: 10 * time.Second,
				Schedule: []AutoscalerWindow{{From: 8 * time.Hour, To: 20 * time.Hour, MinParallelism: 4},
					{From: 23*time.Hour + 30*time.Minute, To: time.Hour, MaxParallelism: 2}}}, ""},
		{`{"schedule": [{"from": "8am", "to": "20:00", "minParallelism": 4}]}`, Autoscaler{},
			`autoscaler: line 1: schedule[0].from: must be a time of day UTC such as 08:00 or 23:30, got "8am"`},
		{`{"schedule": [{"from": "08:00", "to": "20:00"}]}`, Autoscaler{},
			`autoscaler: line 1: schedule[0]: a window sets minParallelism, maxParallelism or both`},
		{`{"maxParallelism": 200}`, Autoscaler{}, `autoscaler: line 1: maxParallelism: 200 is above the job's maxParallelism 128 (its key groups)`},
		{`{"enabled": 1}`, Autoscaler{}, `autoscaler: line 1: enabled: must be true or false, got "1"`},
		{`[1]`, Autoscaler{}, `a job spec must be a mapping`},
	}
	for _, tt := range tests {
		got, err := ParseAutoscaler([]byte(tt.body), 128)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want %q", tt.body, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, %v, want %+v", tt.body, got, err, tt.want)
		}
	}
}
