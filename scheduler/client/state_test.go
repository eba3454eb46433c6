package client_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// requestLog records the method and escaped path of every request.
type requestLog struct {
	mu   sync.Mutex
	reqs []string
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.reqs = append(l.reqs, r.Method+" "+r.URL.EscapedPath())
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// last returns the latest request.
func (l *requestLog) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reqs[len(l.reqs)-1]
}

func int64Raw(n int64) []byte {
	return binary.LittleEndian.AppendUint64(nil, uint64(n))
}

// startState serves a Fake with one running job, job-1, whose states are
// counts (int64), names (string), docs (json) and blobs (bytes), all
// queryable, and hidden, which is not; it returns the fake, a client and
// the log of requests.
func startState(t *testing.T) (*clienttest.Fake, *client.Client, *requestLog) {
	t.Helper()
	fake := clienttest.NewFake()
	log := new(requestLog)
	srv := httptest.NewServer(log.wrap(rest.New(fake, rest.Options{})))
	t.Cleanup(srv.Close)
	c := client.New(srv.URL, nil)
	if _, err := c.SubmitFiles(context.Background(), writeJob(t, "wasm"), client.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct{ name, typ string }{{"counts", "int64"}, {"names", "string"}, {"docs", "json"}, {"blobs", "bytes"}} {
		fake.AddState("job-1", s.name, s.typ, true)
	}
	fake.AddState("job-1", "hidden", "int64", false)
	return fake, c, log
}

func keys(ks ...string) [][]byte {
	out := make([][]byte, len(ks))
	for i, k := range ks {
		out[i] = []byte(k)
	}
	return out
}

// TestQueryStateOneKey checks that one key goes by GET as one escaped
// segment, and comes back as the service has it.
func TestQueryStateOneKey(t *testing.T) {
	fake, c, log := startState(t)
	ctx := context.Background()
	for _, k := range []string{"word", "a/b", "/", ".", "..", "50%", "été", "x?y#z", "a:batchGet", "\xff\x00"} {
		fake.PutState("job-1", "counts", k, int64Raw(math.MaxInt64-1))
	}
	tests := []struct{ key, path string }{
		{"word", "/v1/jobs/job-1/state/counts/word"},
		{"a/b", "/v1/jobs/job-1/state/counts/a%2Fb"},
		{"/", "/v1/jobs/job-1/state/counts/%2F"},
		{".", "/v1/jobs/job-1/state/counts/%2E"},
		{"..", "/v1/jobs/job-1/state/counts/%2E%2E"},
		{"50%", "/v1/jobs/job-1/state/counts/50%25"},
		{"été", "/v1/jobs/job-1/state/counts/%C3%A9t%C3%A9"},
		{"x?y#z", "/v1/jobs/job-1/state/counts/x%3Fy%23z"},
		{"a:batchGet", "/v1/jobs/job-1/state/counts/a:batchGet"},
		{"\xff\x00", "/v1/jobs/job-1/state/counts/%FF%00"},
	}
	for _, tt := range tests {
		vals, err := c.QueryState(ctx, "job-1", "counts", keys(tt.key))
		want := []api.StateValue{{Key: tt.key, Found: true, Type: "int64", Value: int64(math.MaxInt64 - 1), Raw: int64Raw(math.MaxInt64 - 1)}}
		if err != nil || !reflect.DeepEqual(vals, want) {
			t.Errorf("QueryState(%q) = %+v, %v; want %+v", tt.key, vals, err, want)
		}
		if got := log.last(); got != "GET "+tt.path {
			t.Errorf("QueryState(%q) sent %s, want GET %s", tt.key, got, tt.path)
		}
	}
	vals, err := c.QueryState(ctx, "job-1", "counts", keys("nope"))
	if want := []api.StateValue{{Key: "nope", Type: "int64"}}; err != nil || !reflect.DeepEqual(vals, want) {
		t.Errorf("an absent key: %+v, %v; want %+v", vals, err, want)
	}
}

// TestQueryStateBatch checks that other numbers of keys go by batchGet,
// binary keys as base64, and come back in order with their keys exact.
func TestQueryStateBatch(t *testing.T) {
	fake, c, log := startState(t)
	ctx := context.Background()
	fake.PutState("job-1", "names", "a", []byte("alpha"))
	fake.PutState("job-1", "names", "", []byte("empty"))
	fake.PutState("job-1", "names", "\xff", []byte("binary"))
	found := func(k, v string) api.StateValue {
		return api.StateValue{Key: k, Found: true, Type: "string", Value: v, Raw: []byte(v)}
	}
	absent := func(k string) api.StateValue { return api.StateValue{Key: k, Type: "string"} }
	tests := []struct {
		name string
		keys [][]byte
		want []api.StateValue
	}{
		{"several", keys("a", "b", "a"), []api.StateValue{found("a", "alpha"), absent("b"), found("a", "alpha")}},
		{"empty key", keys(""), []api.StateValue{found("", "empty")}},
		{"binary keys", keys("\xff", "a", "\xfe"), []api.StateValue{found("\xff", "binary"), found("a", "alpha"), absent("\xfe")}},
		{"no keys", nil, []api.StateValue{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals, err := c.QueryState(ctx, "job-1", "names", tt.keys)
			if err != nil || !reflect.DeepEqual(vals, tt.want) {
				t.Errorf("got %+v, %v; want %+v", vals, err, tt.want)
			}
			if got := log.last(); got != "POST /v1/jobs/job-1/state/names:batchGet" {
				t.Errorf("sent %s", got)
			}
		})
	}
}

// TestQueryStateTypes checks that values are rendered again from their raw
// bytes on the client's side, as the service renders them.
func TestQueryStateTypes(t *testing.T) {
	fake, c, _ := startState(t)
	ctx := context.Background()
	fake.PutState("job-1", "counts", "big", int64Raw(1<<62+1)) // not exact as a float64
	fake.PutState("job-1", "counts", "short", []byte{1, 2})
	fake.PutState("job-1", "docs", "d", []byte(`{"n": 1}`))
	fake.PutState("job-1", "docs", "bad", []byte(`{`))
	fake.PutState("job-1", "blobs", "b", []byte{0, 0xff})
	tests := []struct {
		state, key string
		want       any
	}{
		{"counts", "big", int64(1<<62 + 1)},
		{"counts", "short", "AQI="},
		{"docs", "d", json.RawMessage(`{"n": 1}`)},
		{"docs", "bad", "ew=="},
		{"blobs", "b", "AP8="},
	}
	for _, tt := range tests {
		for _, ks := range [][][]byte{keys(tt.key), keys(tt.key, "other")} {
			vals, err := c.QueryState(ctx, "job-1", tt.state, ks)
			if err != nil || !reflect.DeepEqual(vals[0].Value, tt.want) {
				t.Errorf("%s/%s with %d keys: %#v, %v; want %#v", tt.state, tt.key, len(ks), vals, err, tt.want)
			}
		}
	}
}

// TestQueryStateErrors checks that each error wraps its api sentinel, for
// one key and several, and that a 503 says when to retry.
func TestQueryStateErrors(t *testing.T) {
	fake, c, _ := startState(t)
	ctx := context.Background()
	tests := []struct {
		name, job, state string
		fail             error
		is               error
		status           int
		message          string
	}{
		{"unknown job", "nope", "counts", nil, api.ErrNotFound, 404, `not found: no job "nope"`},
		{"unknown state", "job-1", "nope", nil, api.ErrNotFound, 404, `not found: job job-1 has no state named "nope"`},
		{"not queryable", "job-1", "hidden", nil, api.ErrForbidden, 403, `forbidden: state "hidden" of job job-1 is not declared queryable`},
		{"gone", "job-1", "counts", fmt.Errorf("%w: job job-1 finished 11m0s ago", api.ErrConflict), api.ErrConflict, 409,
			"conflict: job job-1 finished 11m0s ago"},
		{"moving", "job-1", "counts", fmt.Errorf("%w: job job-1 is RESTARTING", api.ErrUnavailable), api.ErrUnavailable, 503,
			"unavailable: job job-1 is RESTARTING"},
	}
	for _, tt := range tests {
		for _, ks := range [][][]byte{keys("a"), keys("a", "b")} {
			t.Run(fmt.Sprintf("%s, %d keys", tt.name, len(ks)), func(t *testing.T) {
				if tt.fail != nil {
					fake.FailQueries(tt.job, tt.fail)
				}
				vals, err := c.QueryState(ctx, tt.job, tt.state, ks)
				var e *client.Error
				if !errors.As(err, &e) || !errors.Is(err, tt.is) || vals != nil {
					t.Fatalf("got %+v, %v; want an error wrapping %v", vals, err, tt.is)
				}
				if e.StatusCode != tt.status || !strings.HasPrefix(e.Message, tt.message) {
					t.Errorf("got %d %q, want %d %q...", e.StatusCode, e.Message, tt.status, tt.message)
				}
				if want := map[bool]time.Duration{true: time.Second}[tt.status == 503]; e.RetryAfter != want {
					t.Errorf("RetryAfter %v, want %v", e.RetryAfter, want)
				}
			})
		}
	}
}

func TestGetInt64(t *testing.T) {
	fake, c, _ := startState(t)
	ctx := context.Background()
	fake.PutState("job-1", "counts", "word", int64Raw(-3))
	fake.PutState("job-1", "counts", "short", []byte{1})
	fake.PutState("job-1", "names", "word", []byte("x"))
	tests := []struct {
		state, key string
		n          int64
		found      bool
		err        string
	}{
		{"counts", "word", -3, true, ""},
		{"counts", "nope", 0, false, ""},
		{"counts", "short", 0, false, `state "counts" of job job-1: int64 value of key "short" has 1 bytes, want 8`},
		{"names", "word", 0, false, `state "names" of job job-1 holds string values, not int64`},
		{"names", "nope", 0, false, `state "names" of job job-1 holds string values, not int64`},
		{"hidden", "word", 0, false, "forbidden: "},
	}
	for _, tt := range tests {
		n, found, err := c.GetInt64(ctx, "job-1", tt.state, tt.key)
		if n != tt.n || found != tt.found || (err == nil) != (tt.err == "") || (err != nil && !strings.HasPrefix(err.Error(), tt.err)) {
			t.Errorf("GetInt64(%s, %s) = %d, %v, %v; want %d, %v, %q", tt.state, tt.key, n, found, err, tt.n, tt.found, tt.err)
		}
	}
}

// TestQueryStateShortAnswer checks a server that answers fewer values than
// keys, which the client must not index past.
func TestQueryStateShortAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"values": [{"key": "a", "found": false, "type": "int64"}]}`)
	}))
	defer srv.Close()
	_, err := client.New(srv.URL, nil).QueryState(context.Background(), "j", "s", keys("a", "b"))
	if err == nil || !strings.Contains(err.Error(), "answered 1 values for 2 keys") {
		t.Errorf("got %v", err)
	}
}

// TestQueryStateForeign404 checks that a 404 without the scheduler's mark
// of an absent key, as a proxy might send, is an error.
func TestQueryStateForeign404(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error": "key not found"}`, http.StatusNotFound)
	}))
	defer srv.Close()
	_, err := client.New(srv.URL, nil).QueryState(context.Background(), "j", "s", keys("a"))
	if !errors.Is(err, api.ErrNotFound) {
		t.Errorf("got %v", err)
	}
}
