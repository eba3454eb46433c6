package jobspec_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	. "github.com/floe-stream/floe/internal/jobspec"
)

// marker is a secret value that no message may contain.
const marker = "s3cr3t-MARKER-7f1c"

// TestSecretParams checks how a parameter is declared secret: {secret: true}
// with its value from --set, listed in Job.Secrets and still in Job.Params for
// the task managers.
func TestSecretParams(t *testing.T) {
	spec := y(okName, okSink,
		"params: {apiKey: {secret: true}, dir: /data}",
		"source: {type: file, uid: in, path: '${dir}/${apiKey}.txt'}")
	job, err := Parse([]byte(spec), "", map[string]string{"apiKey": marker})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(job.Secrets, []string{"apiKey"}) {
		t.Errorf("Secrets = %q, want [apiKey]", job.Secrets)
	}
	if job.Params["apiKey"] != marker || job.Params["dir"] != "/data" {
		t.Errorf("Params = %q, want the secret and the default", job.Params)
	}
	if got, want := job.Redact("open /data/"+marker+".txt: no such file"), "open /data/[secret].txt: no such file"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}

// TestSecretParamErrors checks that a bad secret declaration is refused and
// that no message quotes a secret's value, wherever it was substituted.
func TestSecretParamErrors(t *testing.T) {
	set := map[string]string{"apiKey": marker}
	spec := func(params string, fields ...string) string {
		return y(append([]string{okName, okSink, "params: " + params, "source: {type: file, uid: in, path: x}"}, fields...)...)
	}
	tests := []struct {
		name    string
		spec    string
		set     map[string]string
		wantErr []string
	}{{
		name:    "a secret in a number",
		spec:    spec("{apiKey: {secret: true}}", "parallelism: ${apiKey}"),
		set:     set,
		wantErr: []string{`line 5: parallelism: must be an integer >= 1, got "[secret]"`},
	}, {
		name:    "a secret within a longer value",
		spec:    spec("{apiKey: {secret: true}}", "checkpoints: {interval: 'x${apiKey}y'}"),
		set:     set,
		wantErr: []string{`checkpoints.interval:`, `"x[secret]y"`},
	}, {
		name:    "a secret that %q escapes",
		spec:    spec("{apiKey: {secret: true}}", "parallelism: ${apiKey}"),
		set:     map[string]string{"apiKey": "pa\"ss\n" + marker + "\x01é"},
		wantErr: []string{`line 5: parallelism: must be an integer >= 1, got "[secret]"`},
	}, {
		name:    "a secret without --set",
		spec:    spec("{apiKey: {secret: true}}", "parallelism: ${apiKey}"),
		wantErr: []string{`line 5: parallelism: secret parameter "apiKey" has no value: pass --set apiKey=VALUE`},
	}, {
		name:    "a secret with a default",
		spec:    spec("{apiKey: {secret: true, default: x}}"),
		set:     set,
		wantErr: []string{`line 3: params.apiKey.default: unknown field (known fields: secret)`},
	}, {
		name:    "secret: false",
		spec:    spec("{apiKey: {secret: false}}"),
		set:     set,
		wantErr: []string{`params.apiKey: write {secret: true} for a secret parameter, or its default value`},
	}, {
		name:    "secret: not a bool",
		spec:    spec("{apiKey: {secret: yes}}"),
		set:     set,
		wantErr: []string{`params.apiKey.secret: must be true or false, got "yes"`},
	}, {
		name:    "a parameter of the wrong shape",
		spec:    spec("{apiKey: [a]}"),
		set:     set,
		wantErr: []string{`line 3: params.apiKey: must be a mapping, got a list`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.spec), "", tt.set)
			if err == nil {
				t.Fatalf("no error, want %q", tt.wantErr)
			}
			if msg := err.Error(); strings.Contains(msg, marker) || strings.Contains(msg, `pa"ss`) || strings.Contains(msg, `pa\"ss`) {
				t.Errorf("the error quotes the secret:\n%v", err)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q\nlacks %q", err, want)
				}
			}
		})
	}
}

// TestRedactErrorKeepsTheKind checks that a redacted error still matches
// what it wraps, and that an error quoting no secret is returned as is.
func TestRedactErrorKeepsTheKind(t *testing.T) {
	spec := y(okName, okSink, "params: {apiKey: {secret: true}}", "source: {type: file, uid: in, path: x}")
	job, err := Parse([]byte(spec), "", map[string]string{"apiKey": marker})
	if err != nil {
		t.Fatal(err)
	}
	kind := errors.New("bad request")
	err = job.RedactError(fmt.Errorf("%w: bucket %q", kind, marker))
	if got, want := err.Error(), `bad request: bucket "[secret]"`; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if !errors.Is(err, kind) {
		t.Errorf("%v no longer wraps its kind", err)
	}
	plain := fmt.Errorf("%w: no bucket", kind)
	if got := job.RedactError(plain); got != plain {
		t.Errorf("RedactError(%v) = %v, want it unchanged", plain, got)
	}
	if job.RedactError(nil) != nil {
		t.Error("RedactError(nil) is not nil")
	}
}
