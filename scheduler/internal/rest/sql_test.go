package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// scriptError is a compiler's error at a place, as internal/sqlc's is.
type scriptError struct{ line, column int }

func (e *scriptError) Error() string                { return "line 2, column 5: unknown column \"x\"" }
func (e *scriptError) Position() (line, column int) { return e.line, e.column }

// fakeCompiler compiles "ok" into a job of no module, and anything else
// into an error at line 2, column 5.
func fakeCompiler(script, name string, _ map[string]string) ([]byte, error) {
	if script != "ok" {
		return nil, &scriptError{2, 5}
	}
	return []byte("name: " + name + "\nsource: {type: generator, uid: gen, count: \"${n}\"}\nsink: {type: stdout, uid: out}\n"), nil
}

func TestSubmitSQL(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		// want is in the answer's body.
		want string
	}{
		{"submits", `{"sql": "ok", "name": "q", "set": {"n": "5"}, "parallelism": 3}`, 201, `"id"`},
		{"script error", `{"sql": "SELECT x"}`, 400, `"line":2,"column":5`},
		{"no script", `{"name": "q"}`, 400, "sql: required"},
		{"unknown field", `{"sql": "ok", "paralellism": 3}`, 400, "paralellism"},
		{"not JSON", `sql=ok`, 400, "want a JSON body"},
		{"negative parallelism", `{"sql": "ok", "parallelism": -1}`, 400, "parallelism"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, rest.Options{CompileSQL: fakeCompiler})
			rec := e.do(http.MethodPost, "/v1/sql", strings.NewReader(tt.body), "application/json")
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.want) {
				t.Fatalf("%d %s, want %d with %s", rec.Code, rec.Body, tt.status, tt.want)
			}
			subs := e.fake.Submissions()
			if tt.status != 201 {
				if len(subs) != 0 {
					t.Errorf("%d submissions after a %d", len(subs), tt.status)
				}
				return
			}
			if len(subs) != 1 || subs[0].Parallelism != 3 || subs[0].Params["n"] != "5" || !strings.HasPrefix(string(subs[0].Spec), "name: q\n") {
				t.Errorf("submissions %+v, want the compiled job named q with n=5 at parallelism 3", subs)
			}
		})
	}
}

func TestSubmitSQLWithoutCompiler(t *testing.T) {
	e := newEnv(t, rest.Options{})
	rec := e.do(http.MethodPost, "/v1/sql", strings.NewReader(`{"sql": "ok"}`), "application/json")
	if rec.Code != http.StatusNotImplemented || !strings.Contains(rec.Body.String(), "without a SQL compiler") {
		t.Errorf("%d %s, want 501 saying the scheduler has no compiler", rec.Code, rec.Body)
	}
}
