package jobspec_test

import (
	"reflect"
	"strings"
	"testing"

	_ "github.com/floe-stream/floe/host/connector/builtin"
	"github.com/floe-stream/floe/host/connector/file"
	. "github.com/floe-stream/floe/internal/jobspec"
)

// TestSubstitution checks parameters end to end: the spec's source path and
// rate show what a reference became, or the error says why it could not.
func TestSubstitution(t *testing.T) {
	spec := func(params, path string) string {
		return y(okName, okSink, "params: "+params, "source:", "  type: file", "  uid: in", "  path: "+path)
	}
	tests := []struct {
		name     string
		spec     string
		set      map[string]string
		wantPath string
		wantErr  []string
	}{{
		name:     "default from params",
		spec:     spec("{input: in.txt}", "${input}"),
		wantPath: "in.txt",
	}, {
		name:     "--set overrides the default",
		spec:     spec("{input: in.txt}", "${input}"),
		set:      map[string]string{"input": "other.txt"},
		wantPath: "other.txt",
	}, {
		name:     "--set of an undeclared parameter the spec uses",
		spec:     spec("{}", "${input}"),
		set:      map[string]string{"input": "x.txt"},
		wantPath: "x.txt",
	}, {
		name:     "several references within one value",
		spec:     spec("{dir: /data, day: '2024-01-02'}", "${dir}/${day}/part-${day}.txt"),
		wantPath: "/data/2024-01-02/part-2024-01-02.txt",
	}, {
		name:    "unterminated reference",
		spec:    spec("{}", "'cost$${x}/$5/${'"),
		wantErr: []string{`line 7: source.path: unterminated "${": write ${name}, or $${ for a literal ${`},
	}, {
		name:     "escaped reference alone",
		spec:     spec("{}", "'$${HOME}/$x'"),
		wantPath: "${HOME}/$x",
	}, {
		name:     "parameter values are not expanded again",
		spec:     spec("{input: '${other}'}", "${input}"),
		wantPath: "${other}",
	}, {
		name:     "declared parameter set to the empty string",
		spec:     spec("{}", "dir/${suffix}"),
		set:      map[string]string{"suffix": ""},
		wantPath: "dir/",
	}, {
		name:    "missing parameter",
		spec:    spec("{}", "${input}"),
		wantErr: []string{`line 7: source.path: parameter "input" has no value: pass --set input=VALUE or give it a default under params`},
	}, {
		name:    "parameter declared without a default",
		spec:    spec("{input: ~}", "${input}"),
		wantErr: []string{`line 7: source.path: parameter "input" has no value`},
	}, {
		name: "every missing parameter of a value",
		spec: spec("{}", "${dir}/${file}"),
		wantErr: []string{
			`line 7: source.path: parameter "dir" has no value`,
			`line 7: source.path: parameter "file" has no value`,
		},
	}, {
		name:    "empty value for a required field",
		spec:    spec("{}", "${input}"),
		set:     map[string]string{"input": ""},
		wantErr: []string{`source.path: must not be empty`},
	}, {
		name:    "unknown --set parameter",
		spec:    spec("{input: in.txt}", "${input}"),
		set:     map[string]string{"inptu": "x", "zzz": "y"},
		wantErr: []string{`--set inptu: unknown parameter`, `--set zzz: unknown parameter`},
	}, {
		name:     "--set of a declared but unused parameter",
		spec:     spec("{input: in.txt, spare: x}", "${input}"),
		set:      map[string]string{"spare": "y"},
		wantPath: "in.txt",
	}, {
		name:    "malformed reference",
		spec:    spec("{}", "'${a b}'"),
		wantErr: []string{`source.path: invalid parameter reference "${a b}": a name matches [A-Za-z0-9._-]+`},
	}, {
		name:    "empty reference",
		spec:    spec("{}", "'${}'"),
		wantErr: []string{`source.path: invalid parameter reference "${}"`},
	}, {
		name:    "malformed parameter name",
		spec:    spec("{'a b': x}", "in.txt"),
		wantErr: []string{`line 3: params.a b: invalid parameter name "a b"`},
	}, {
		name:    "params of the wrong shape",
		spec:    spec("[input]", "${input}"),
		wantErr: []string{`line 3: params: must be a mapping, got a list`, `parameter "input" has no value`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job, err := Parse([]byte(tt.spec), "", tt.set)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("no error, want %q", tt.wantErr)
				}
				assertLines(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := job.Sources[0].Spec.(*file.SourceSpec).Path; got != tt.wantPath {
				t.Errorf("path = %q, want %q", got, tt.wantPath)
			}
		})
	}
}

// TestSubstitutionIntoTypedFields checks that a parameter can stand for a
// number, a bool, a duration or a key, and that it is expanded in lists and
// nested sections but not in field names.
func TestSubstitutionIntoTypedFields(t *testing.T) {
	spec := y(
		"name: ${job}",
		"params: {job: typed, p: '3', rate: '2.5', follow: 'true', every: 1m, field: '2'}",
		"parallelism: ${p}",
		"source: {type: file, uid: in, path: x, rate: '${rate}', follow: '${follow}'}",
		"operators: [{type: keyBy, uid: k, key: 'csv:${field}'}]",
		"sink: {type: stdout, uid: out}",
		"checkpoints: {interval: '${every}'}",
	)
	job, err := Parse([]byte(spec), "", map[string]string{"p": "4"})
	if err != nil {
		t.Fatal(err)
	}
	got := []any{job.Name, job.Parallelism, job.Sources[0].Spec.(*file.SourceSpec).Rate, job.Sources[0].Spec.(*file.SourceSpec).Follow, job.Operators[0].Key, job.Checkpoints.Interval.String()}
	want := []any{"typed", 4, 2.5, true, KeySelector{Kind: KeyCSV, Field: 2}, "1m0s"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	_, err = Parse([]byte(strings.Replace(spec, "source:", "${x}:", 1)), "", map[string]string{"x": "source"})
	assertLines(t, err, []string{"line 4: ${x}: unknown field", "--set x: unknown parameter", "source: required"})
}

func TestParseSet(t *testing.T) {
	tests := []struct {
		in      []string
		want    map[string]string
		wantErr []string
	}{
		{in: nil, want: map[string]string{}},
		{in: []string{"input=/data/in.txt", "rate=0"}, want: map[string]string{"input": "/data/in.txt", "rate": "0"}},
		{in: []string{"q=a=b", "empty="}, want: map[string]string{"q": "a=b", "empty": ""}},
		{in: []string{"n=1", "n=2"}, want: map[string]string{"n": "2"}},
		{in: []string{"input", "=x", "a b=c"}, wantErr: []string{
			`--set "input": want name=value`,
			`--set "=...": invalid parameter name ""`,
			`--set "a b=...": invalid parameter name "a b"`,
		}},
	}
	for _, tt := range tests {
		got, err := ParseSet(tt.in)
		if tt.wantErr != nil {
			if err == nil {
				t.Errorf("ParseSet(%q): no error", tt.in)
				continue
			}
			assertLines(t, err, tt.wantErr)
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSet(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}
