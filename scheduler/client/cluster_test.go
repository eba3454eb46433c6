package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
)

// testCluster is what the fake schedulers of these tests answer to GET
// /v1/cluster.
var testCluster = api.ClusterStatus{
	Leader: "10.0.0.1:7000",
	Term:   3,
	Members: []api.ClusterMember{
		{ID: "10.0.0.1:7000", RaftAddr: "10.0.0.1:7000", RESTAddr: "10.0.0.1:8081", Leader: true, Applied: 42, Reachable: true},
		{ID: "10.0.0.2:7000", RaftAddr: "10.0.0.2:7000", RESTAddr: "10.0.0.2:8081", Applied: 41, Reachable: true},
		{ID: "10.0.0.3:7000", RaftAddr: "10.0.0.3:7000"},
	},
}

// scheduler is a fake scheduler that answers every request with status
// (and, for 200, with testCluster) and counts the requests.
type scheduler struct {
	url  string
	hits atomic.Int32
}

// A fake scheduler's behaviours.
const (
	answers     = http.StatusOK
	unavailable = http.StatusServiceUnavailable
	notFound    = http.StatusNotFound
	dead        = 0  // nothing listens
	hangsUp     = -1 // accepts the request, then closes the connection
)

func newScheduler(t *testing.T, status int) *scheduler {
	t.Helper()
	s := &scheduler{}
	if status == dead {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s.url = "http://" + l.Addr().String()
		l.Close()
		return s
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		switch status {
		case hangsUp:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case answers:
			if r.Method == http.MethodGet {
				json.NewEncoder(w).Encode(testCluster)
			}
		default:
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(map[string]string{"error": http.StatusText(status)})
		}
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// TestCluster reads the cluster view.
func TestCluster(t *testing.T) {
	s := newScheduler(t, answers)
	got, err := client.New(s.url, nil).Cluster(context.Background())
	if err != nil || !reflect.DeepEqual(got, testCluster) {
		t.Errorf("Cluster() = %+v, %v; want %+v", got, err, testCluster)
	}
}

// TestFailover gives a client a list of schedulers: it moves on past those
// it cannot reach and those that answer 503, and sticks to the first that
// answers, an error status being an answer.
func TestFailover(t *testing.T) {
	for _, tc := range []struct {
		name       string
		schedulers []int
		write      bool // Cancel, a DELETE, rather than Cluster, a GET
		// want is the index of the scheduler that answers, or -1 when
		// none does and check judges the error.
		want  int
		check func(error) bool
	}{
		{name: "the first answers", schedulers: []int{answers, answers}, want: 0},
		{name: "the first is dead", schedulers: []int{dead, answers}, want: 1},
		{name: "the first is unavailable", schedulers: []int{unavailable, dead, answers}, want: 2},
		{name: "an error status is an answer", schedulers: []int{notFound, answers}, want: 0,
			check: func(err error) bool { return errors.Is(err, api.ErrNotFound) }},
		{name: "a read moves on after a broken connection", schedulers: []int{hangsUp, answers}, want: 1},
		{name: "a write does not, lest it be applied twice", schedulers: []int{hangsUp, answers}, write: true, want: 0,
			check: func(err error) bool { return err != nil && !client.IsUnreachable(err) }},
		{name: "a write moves on past a dead scheduler", schedulers: []int{dead, answers}, write: true, want: 1},
		{name: "none answers: the 503 is the error", schedulers: []int{unavailable, dead}, want: -1,
			check: func(err error) bool { return errors.Is(err, api.ErrUnavailable) }},
		{name: "none can be reached", schedulers: []int{dead, dead}, want: -1, check: client.IsUnreachable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ss []*scheduler
			var urls []string
			for _, st := range tc.schedulers {
				ss = append(ss, newScheduler(t, st))
				urls = append(urls, ss[len(ss)-1].url)
			}
			c := client.New(strings.Join(urls, ", "), nil)
			call := func() error {
				if tc.write {
					return c.Cancel(context.Background(), "job-1")
				}
				got, err := c.Cluster(context.Background())
				if err == nil && !reflect.DeepEqual(got, testCluster) {
					t.Errorf("Cluster() = %+v", got)
				}
				return err
			}
			check := tc.check
			if check == nil {
				check = func(err error) bool { return err == nil }
			}
			for round := range 2 {
				before := make([]int32, len(ss))
				for i, s := range ss {
					before[i] = s.hits.Load()
				}
				if err := call(); !check(err) {
					t.Fatalf("round %d: unexpected error %v", round, err)
				}
				if tc.want < 0 {
					continue
				}
				if c.BaseURL() != urls[tc.want] {
					t.Errorf("round %d: the client sticks to %s, want %s", round, c.BaseURL(), urls[tc.want])
				}
				if round == 1 {
					// The client went straight to the scheduler it stuck to.
					for i, s := range ss {
						if n := s.hits.Load() - before[i]; n != int32(b2i(i == tc.want)) {
							t.Errorf("round 1: scheduler %d had %d requests", i, n)
						}
					}
				}
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestFailoverWrapsAround makes the scheduler a client sticks to
// unavailable: the client moves to the next, from the end of the list back
// to its start.
func TestFailoverWrapsAround(t *testing.T) {
	var status [2]atomic.Int32
	var urls []string
	for i := range status {
		status[i].Store(http.StatusOK)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if st := int(status[i].Load()); st != http.StatusOK {
				w.WriteHeader(st)
				return
			}
			json.NewEncoder(w).Encode(testCluster)
		}))
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	c := client.New(strings.Join(urls, ","), nil)
	for _, step := range []struct {
		down int // the scheduler that becomes unavailable
		want int // the scheduler the client sticks to then
	}{{0, 1}, {1, 0}} {
		status[step.down].Store(http.StatusServiceUnavailable)
		status[1-step.down].Store(http.StatusOK)
		if _, err := c.Cluster(context.Background()); err != nil {
			t.Fatal(err)
		}
		if c.BaseURL() != urls[step.want] {
			t.Errorf("with scheduler %d down the client sticks to %s, want %s", step.down, c.BaseURL(), urls[step.want])
		}
	}
	if got := c.BaseURLs(); !reflect.DeepEqual(got, urls) {
		t.Errorf("BaseURLs() = %v, want %v", got, urls)
	}
}
