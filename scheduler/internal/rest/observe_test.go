package rest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

func TestExceptions(t *testing.T) {
	e := newEnv(t, rest.Options{})
	id := e.mustSubmit(t)
	var empty map[string]any
	decode(t, e.do(http.MethodGet, "/v1/jobs/"+id+"/exceptions", nil, ""), http.StatusOK, &empty)
	if l, ok := empty["exceptions"].([]any); !ok || len(l) != 0 || empty["dropped"] != 0.0 {
		t.Errorf("no failures: %v, want an empty list and dropped 0", empty)
	}
	e.fake.AddException(id, api.Exception{Time: clienttest.Start, Attempt: 1, Message: "first"})
	e.fake.AddException(id, api.Exception{Time: clienttest.Start.Add(time.Second), Attempt: 2, Key: `"k"`, Message: "second"})
	var x api.Exceptions
	decode(t, e.do(http.MethodGet, "/v1/jobs/"+id+"/exceptions", nil, ""), http.StatusOK, &x)
	if len(x.Exceptions) != 2 || x.Exceptions[0].Message != "second" || x.Exceptions[0].Key != `"k"` || x.Exceptions[1].Message != "first" {
		t.Errorf("got %+v, want the two failures newest first", x)
	}
	if rec := e.do(http.MethodGet, "/v1/jobs/nope/exceptions", nil, ""); rec.Code != http.StatusNotFound {
		t.Errorf("unknown job: %d %s", rec.Code, rec.Body)
	}
}

func TestLogs(t *testing.T) {
	e := newEnv(t, rest.Options{})
	id := e.mustSubmit(t)
	for n := 1; n <= 5; n++ {
		e.fake.AddLog(id, api.LogLine{Seq: int64(n * 10), Time: clienttest.Start.Add(time.Duration(n) * time.Second),
			Vertex: "gen -> upper", Subtask: n % 2, Message: strings.Repeat("x", n)})
	}
	since := clienttest.Start.Add(3 * time.Second).Add(-time.Nanosecond).Format(time.RFC3339Nano)
	for _, tc := range []struct {
		query string
		want  []int64
		next  int64
		more  bool
	}{
		{"", []int64{10, 20, 30, 40, 50}, 50, false},
		{"?since=20", []int64{30, 40, 50}, 50, false},
		{"?since=50", nil, 50, false},
		{"?limit=2", []int64{10, 20}, 20, true},
		{"?since=10&limit=2", []int64{20, 30}, 30, true},
		{"?vertex=0&subtask=1", []int64{10, 30, 50}, 50, false},
		{"?vertex=gen+-%3E+upper&subtask=0&since=20", []int64{40}, 40, false},
		{"?vertex=other", nil, 0, false},
		// The fake's seqs are not times; a time gives the seq it stands for.
		{"?since=" + since, nil, clienttest.Start.Add(3*time.Second).UnixNano() - 1, false},
	} {
		t.Run(tc.query, func(t *testing.T) {
			var logs api.Logs
			decode(t, e.do(http.MethodGet, "/v1/jobs/"+id+"/logs"+tc.query, nil, ""), http.StatusOK, &logs)
			var seqs []int64
			for _, l := range logs.Lines {
				seqs = append(seqs, l.Seq)
			}
			if logs.Lines == nil || !slices.Equal(seqs, tc.want) || logs.Next != tc.next || logs.More != tc.more {
				t.Errorf("lines %v next %d more %t; want %v, %d, %t", seqs, logs.Next, logs.More, tc.want, tc.next, tc.more)
			}
		})
	}
	for _, q := range []string{"?since=x", "?since=-1", "?subtask=1", "?vertex=0&subtask=x", "?vertex=0&subtask=-2", "?limit=0x", "?limit=-1", "?limit=10001"} {
		if rec := e.do(http.MethodGet, "/v1/jobs/"+id+"/logs"+q, nil, ""); rec.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", q, rec.Code, rec.Body)
		}
	}
	if rec := e.do(http.MethodGet, "/v1/jobs/nope/logs", nil, ""); rec.Code != http.StatusNotFound {
		t.Errorf("unknown job: %d %s", rec.Code, rec.Body)
	}
}
