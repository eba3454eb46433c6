package rest_test

import (
	"encoding/binary"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// int64Raw is n as an int64 state stores it.
func int64Raw(n int64) []byte {
	return binary.LittleEndian.AppendUint64(nil, uint64(n))
}

// withState returns an env with one running job, job-1, whose queryable
// int64 state counts holds the given keys, each with the value 7, and
// whose state hidden is not queryable.
func withState(t *testing.T, opts rest.Options, keys ...string) *env {
	t.Helper()
	e := newEnv(t, opts)
	id := e.mustSubmit(t)
	e.fake.AddState(id, "counts", "int64", true)
	e.fake.AddState(id, "hidden", "int64", false)
	for _, k := range keys {
		e.fake.PutState(id, "counts", k, int64Raw(7))
	}
	return e
}

// TestStateGetKeys checks that a key is one percent-decoded path segment:
// "/" arrives as %2F, dots as %2E, anything else escaped or not.
func TestStateGetKeys(t *testing.T) {
	keys := []string{"word", "a/b", "/", "..", ".", "été", "sp ace", "50%", "x?y#z", "a:b", "\xff\x00"}
	e := withState(t, rest.Options{}, keys...)
	tests := []struct{ segment, key string }{
		{"word", "word"},
		{"a%2Fb", "a/b"},
		{"a%2fb", "a/b"},
		{"%2F", "/"},
		{"%2E%2E", ".."},
		{"%2E", "."},
		{"%C3%A9t%C3%A9", "été"},
		{"été", "été"},
		{"sp%20ace", "sp ace"},
		{"50%25", "50%"},
		{"x%3Fy%23z", "x?y#z"},
		{"a:b", "a:b"},
		{"%FF%00", "\xff\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.segment, func(t *testing.T) {
			var out api.StateValue
			decode(t, e.do("GET", "/v1/jobs/job-1/state/counts/"+tt.segment, nil, ""), http.StatusOK, &out)
			if !out.Found || out.Type != "int64" || out.Value != float64(7) || !slices.Equal(out.Raw, int64Raw(7)) {
				t.Errorf("got %+v", out)
			}
			qs := e.fake.Queries()
			if q := qs[len(qs)-1]; q.Job != "job-1" || q.State != "counts" || !slices.Equal(q.Keys, []string{tt.key}) {
				t.Errorf("the service was asked %+v, want key %q", q, tt.key)
			}
		})
	}
}

// TestStateGetBody checks the exact bodies: the value rendered by the
// state's type, and the 404 of an absent key.
func TestStateGetBody(t *testing.T) {
	e := newEnv(t, rest.Options{})
	id := e.mustSubmit(t)
	for _, s := range []struct {
		typ string
		raw []byte
	}{{"int64", int64Raw(-42)}, {"string", []byte(`hi "you"`)}, {"json", []byte(`{"a": [1, 2]}`)}, {"bytes", []byte{0, 0xff}},
		{"json", []byte("not json")}, {"int64", []byte{1}}} {
		name := s.typ + fmt.Sprint(len(s.raw))
		e.fake.AddState(id, name, s.typ, true)
		e.fake.PutState(id, name, "k", s.raw)
	}
	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"int648/k", 200, `{"key":"k","found":true,"type":"int64","value":-42,"raw":"1v////////8="}`},
		{"string8/k", 200, `{"key":"k","found":true,"type":"string","value":"hi \"you\"","raw":"aGkgInlvdSI="}`},
		{"json13/k", 200, `{"key":"k","found":true,"type":"json","value":{"a":[1,2]},"raw":"eyJhIjogWzEsIDJdfQ=="}`},
		{"bytes2/k", 200, `{"key":"k","found":true,"type":"bytes","value":"AP8=","raw":"AP8="}`},
		{"json8/k", 200, `{"key":"k","found":true,"type":"json","value":"bm90IGpzb24=","raw":"bm90IGpzb24="}`},
		{"int641/k", 200, `{"key":"k","found":true,"type":"int64","value":"AQ==","raw":"AQ=="}`},
		{"int648/nope", 404, `{"error":"key not found","key":"nope","found":false,"type":"int64"}`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			rec := e.do("GET", "/v1/jobs/"+id+"/state/"+tt.path, nil, "")
			if got := strings.TrimSpace(rec.Body.String()); rec.Code != tt.status || got != tt.want {
				t.Errorf("got %d %s, want %d %s", rec.Code, got, tt.status, tt.want)
			}
		})
	}
}

func TestStateBatchGet(t *testing.T) {
	e := withState(t, rest.Options{}, "word", "a/b", "", "\xff\x00")
	tests := []struct {
		name, body string
		keys       []string // what the service is asked
		found      []bool
	}{
		{"keys", `{"keys": ["word", "missing", "a/b", ""]}`, []string{"word", "missing", "a/b", ""}, []bool{true, false, true, true}},
		{"base64 keys after the others", `{"keysBase64": ["/wA=", "d29yZA=="], "keys": ["nope"]}`,
			[]string{"nope", "\xff\x00", "word"}, []bool{false, true, true}},
		{"no keys", `{}`, []string{}, []bool{}},
		{"empty lists", `{"keys": [], "keysBase64": null}`, []string{}, []bool{}},
		{"repeated key", `{"keys": ["word", "word"]}`, []string{"word", "word"}, []bool{true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out struct{ Values []api.StateValue }
			decode(t, e.do("POST", "/v1/jobs/job-1/state/counts:batchGet", strings.NewReader(tt.body), "application/json"), 200, &out)
			if out.Values == nil || len(out.Values) != len(tt.keys) {
				t.Fatalf("values %+v, want %d", out.Values, len(tt.keys))
			}
			for i, v := range out.Values {
				if v.Found != tt.found[i] || v.Type != "int64" || v.Key != strings.ToValidUTF8(tt.keys[i], "\uFFFD") ||
					(v.Found && v.Value != float64(7)) || (!v.Found && v.Value != nil) {
					t.Errorf("value %d: %+v, want key %q found %v", i, v, tt.keys[i], tt.found[i])
				}
			}
			qs := e.fake.Queries()
			if q := qs[len(qs)-1]; !slices.Equal(q.Keys, tt.keys) {
				t.Errorf("the service was asked for %q, want %q", q.Keys, tt.keys)
			}
		})
	}
}

// TestStateBatchGetPath checks how the custom method ":batchGet" is told
// apart from the state's name, which may hold a colon itself.
func TestStateBatchGetPath(t *testing.T) {
	e := withState(t, rest.Options{})
	e.fake.AddState("job-1", "a:b", "string", true)
	tests := []struct {
		method, path string
		status       int
		state        string // the state the service is asked for, on 200
		allow        string
	}{
		{"POST", "/v1/jobs/job-1/state/counts:batchGet", 200, "counts", ""},
		{"POST", "/v1/jobs/job-1/state/a:b:batchGet", 200, "a:b", ""},
		{"POST", "/v1/jobs/job-1/state/a%3Ab:batchGet", 200, "a:b", ""},
		{"POST", "/v1/jobs/job-1/state/counts", 404, "", ""},
		{"POST", "/v1/jobs/job-1/state/counts:batchget", 404, "", ""},
		{"POST", "/v1/jobs/job-1/state/counts:get", 404, "", ""},
		{"POST", "/v1/jobs/job-1/state/:batchGet", 404, "", ""},
		{"POST", "/v1/jobs/job-1/state/counts:batchGet/x", 405, "", "GET"},
		{"GET", "/v1/jobs/job-1/state/counts:batchGet", 405, "", "POST"},
		{"GET", "/v1/jobs/job-1/state/counts", 404, "", ""},
		{"DELETE", "/v1/jobs/job-1/state/counts/word", 405, "", "GET"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			before := len(e.fake.Queries())
			rec := e.do(tt.method, tt.path, strings.NewReader(`{"keys": ["word"]}`), "application/json")
			var out map[string]any
			decode(t, rec, tt.status, &out)
			if got := rec.Header().Get("Allow"); got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
			qs := e.fake.Queries()
			switch {
			case tt.status != 200 && len(qs) != before:
				t.Errorf("the service was asked %+v", qs[before:])
			case tt.status == 200 && qs[len(qs)-1].State != tt.state:
				t.Errorf("the service was asked for state %q, want %q", qs[len(qs)-1].State, tt.state)
			case tt.status == 404 && !strings.Contains(fmt.Sprint(out["error"]), "no such endpoint"):
				t.Errorf("error %v, want no such endpoint", out["error"])
			}
		})
	}
}

func TestStateBatchGetBadBody(t *testing.T) {
	e := withState(t, rest.Options{})
	tests := []struct{ name, body, want string }{
		{"empty", "", `want a JSON object {"keys": ["..."], "keysBase64": ["..."]} as the body: EOF`},
		{"not JSON", "keys=a", "invalid character"},
		{"a list", `["a"]`, "cannot unmarshal array"},
		{"misspelt field", `{"key": ["a"]}`, `unknown field "key"`},
		{"numbers", `{"keys": [1]}`, "cannot unmarshal number"},
		{"two objects", `{"keys": ["a"]} {"keys": ["b"]}`, "found more after it"},
		{"bad base64", `{"keysBase64": ["d29yZA"]}`, `keysBase64[0] "d29yZA": want standard base64`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out struct{ Error string }
			decode(t, e.do("POST", "/v1/jobs/job-1/state/counts:batchGet", strings.NewReader(tt.body), "application/json"), 400, &out)
			if !strings.Contains(out.Error, tt.want) {
				t.Errorf("error %q, want it to contain %q", out.Error, tt.want)
			}
		})
	}
	if n := len(e.fake.Queries()); n != 0 {
		t.Errorf("%d bad requests reached the service", n)
	}
}

func TestStateBatchGetTooLarge(t *testing.T) {
	e := withState(t, rest.Options{MaxUpload: 1024})
	body := `{"keys": ["` + strings.Repeat("x", 2048) + `"]}`
	var out struct{ Error string }
	decode(t, e.do("POST", "/v1/jobs/job-1/state/counts:batchGet", strings.NewReader(body), "application/json"), 413, &out)
	if want := "body larger than the 1 KiB limit (--max-upload)"; out.Error != want {
		t.Errorf("error %q, want %q", out.Error, want)
	}
}

// TestStateBatchGetTooManyKeys checks that a batch over the key cap is
// refused whole, whichever way its keys are spelt, and never reaches the
// service, while one at the cap is served.
func TestStateBatchGetTooManyKeys(t *testing.T) {
	e := withState(t, rest.Options{MaxBatchKeys: 3})
	for _, tt := range []struct {
		body string
		code int
	}{
		{`{"keys": ["a", "b", "c"]}`, 200},
		{`{"keys": ["a", "b", "c", "d"]}`, 400},
		{`{"keys": ["a", "b"], "keysBase64": ["Yw==", "ZA=="]}`, 400},
	} {
		var out struct{ Error string }
		before := len(e.fake.Queries())
		decode(t, e.do("POST", "/v1/jobs/job-1/state/counts:batchGet", strings.NewReader(tt.body), "application/json"), tt.code, &out)
		if tt.code == 200 {
			continue
		}
		if want := "a batchGet asks for at most 3 keys, this one for 4: split it"; out.Error != want {
			t.Errorf("%s: error %q, want %q", tt.body, out.Error, want)
		}
		if n := len(e.fake.Queries()); n != before {
			t.Errorf("%s: a refused batch reached the service", tt.body)
		}
	}
}

// TestStateErrors checks every error of a query, through both routes, and
// that a 503 says when to retry.
func TestStateErrors(t *testing.T) {
	e := withState(t, rest.Options{}, "word")
	ended := e.mustSubmit(t)
	e.fake.AddState(ended, "counts", "int64", true)
	e.fake.SetState(ended, api.JobCanceled, "")
	restarting := e.mustSubmit(t)
	e.fake.AddState(restarting, "counts", "int64", true)
	e.fake.SetState(restarting, api.JobRestarting, "")
	tests := []struct {
		name, job, state string
		fail             error // scripted with FailQueries
		status           int
		want             string
	}{
		{"unknown job", "nope", "counts", nil, 404, `not found: no job "nope"`},
		{"unknown state", "job-1", "nope", nil, 404, `not found: job job-1 has no state named "nope" (its states: counts, hidden)`},
		{"not queryable", "job-1", "hidden", nil, 403, `forbidden: state "hidden" of job job-1 is not declared queryable`},
		{"ended job", ended, "counts", nil, 409, "conflict: job job-2 is CANCELED; its state is gone"},
		{"past retention", "job-1", "counts", fmt.Errorf("%w: job job-1 finished 11m0s ago; its state was kept for 10m0s", api.ErrConflict),
			409, "conflict: job job-1 finished 11m0s ago"},
		{"restarting", restarting, "counts", nil, 503, "unavailable: job job-3 is RESTARTING; its state is moving"},
		{"moving", "job-1", "counts", fmt.Errorf("%w: key group 7 is not in [0, 64)", api.ErrUnavailable), 503, "unavailable: key group 7"},
		{"service failure", "job-1", "counts", fmt.Errorf("task manager tm-1 answered 2 values for 1 keys"), 500, "task manager tm-1 answered 2 values"},
	}
	for _, tt := range tests {
		for _, route := range []struct{ method, path, body string }{
			{"GET", "/v1/jobs/" + tt.job + "/state/" + tt.state + "/word", ""},
			{"POST", "/v1/jobs/" + tt.job + "/state/" + tt.state + ":batchGet", `{"keys": ["word", "x"]}`},
		} {
			t.Run(tt.name+" "+route.method, func(t *testing.T) {
				if tt.fail != nil {
					e.fake.FailQueries(tt.job, tt.fail)
				}
				rec := e.do(route.method, route.path, strings.NewReader(route.body), "application/json")
				var out struct{ Error string }
				decode(t, rec, tt.status, &out)
				if !strings.HasPrefix(out.Error, tt.want) {
					t.Errorf("error %q, want %q...", out.Error, tt.want)
				}
				want := ""
				if tt.status == 503 {
					want = "1"
				}
				if got := rec.Header().Get("Retry-After"); got != want {
					t.Errorf("Retry-After %q, want %q", got, want)
				}
			})
		}
	}
}

// TestStateFinished checks that a finished job's state stays queryable.
func TestStateFinished(t *testing.T) {
	e := withState(t, rest.Options{}, "word")
	e.fake.SetState("job-1", api.JobFinished, "")
	var out api.StateValue
	decode(t, e.do("GET", "/v1/jobs/job-1/state/counts/word", nil, ""), 200, &out)
	if !out.Found {
		t.Errorf("got %+v", out)
	}
}

// TestStateGetUnescapedSlash checks that a key is one segment: a "/" that
// is not escaped ends it, and the 404 says how to escape it.
func TestStateGetUnescapedSlash(t *testing.T) {
	e := withState(t, rest.Options{}, "a/b", "a")
	tests := []struct{ method, path, want string }{
		{"GET", "/v1/jobs/job-1/state/counts/a/b",
			`no such endpoint: GET /v1/jobs/job-1/state/counts/a/b (escape a "/" within a path segment as %2F)`},
		{"GET", "/v1/jobs/job-1/state/counts/a%2Fb/", "no such endpoint"},
		{"GET", "/v1/jobs/job-1/state/counts/", "no such endpoint"},
		{"DELETE", "/v1/jobs/job-1/state/counts/a/b", "no such endpoint"},
	}
	for _, tt := range tests {
		var out struct{ Error string }
		decode(t, e.do(tt.method, tt.path, nil, ""), 404, &out)
		if !strings.HasPrefix(out.Error, tt.want) {
			t.Errorf("%s %s: error %q, want %q", tt.method, tt.path, out.Error, tt.want)
		}
	}
	if n := len(e.fake.Queries()); n != 0 {
		t.Errorf("%d requests reached the service", n)
	}
}

// TestStateRoutesThroughServer checks %2F keys through a real server and
// http.Client, whose URL handling differs from httptest.NewRequest's.
func TestStateRoutesThroughServer(t *testing.T) {
	fake := clienttest.NewFake()
	srv := clienttest.NewServer(t, fake)
	if _, err := fake.Submit(t.Context(), api.Submission{Spec: []byte(spec), Modules: map[string][]byte{"ops": nil}}); err != nil {
		t.Fatal(err)
	}
	fake.AddState("job-1", "counts", "int64", true)
	fake.PutState("job-1", "counts", "/", int64Raw(1))
	fake.PutState("job-1", "counts", "a/b", int64Raw(2))
	for _, segment := range []string{"%2F", "a%2Fb"} {
		resp, err := srv.Client().Get(srv.URL + "/v1/jobs/job-1/state/counts/" + segment)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %s", segment, resp.Status)
		}
	}
}

func TestServing(t *testing.T) {
	all := []string{"/v1/jobs", "/v1/jobs/{id}", "/v1/jobs/{id}/checkpoints", "/v1/jobs/{id}/state/{name}/{key}",
		"/v1/jobs/{id}/state/{name}:batchGet", "/healthz"}
	tests := []struct {
		p, pattern, wildcard, verb string
		segments                   int
	}{
		{"/v1/jobs", "/v1/jobs", "", "", 0},
		{"/v1/jobs/{id}", "/v1/jobs/{id}", "", "", 0}, // extended by .../checkpoints
		{"/v1/jobs/{id}/checkpoints", "/v1/jobs/{id}/checkpoints", "", "", 0},
		{"/v1/jobs/{id}/state/{name}/{key}", "/v1/jobs/{id}/state/{name}/{key...}", "key", "", 6},
		{"/v1/jobs/{id}/state/{name}:batchGet", "/v1/jobs/{id}/state/{name}", "name", "batchGet", 0},
		{"/files/{path...}", "/files/{path...}", "", "", 0},
	}
	for _, tt := range tests {
		pattern, wildcard, verb, segments := rest.Serving(tt.p, all)
		if pattern != tt.pattern || wildcard != tt.wildcard || verb != tt.verb || segments != tt.segments {
			t.Errorf("Serving(%s) = %s %q %q %d, want %s %q %q %d", tt.p, pattern, wildcard, verb, segments,
				tt.pattern, tt.wildcard, tt.verb, tt.segments)
		}
	}
}
