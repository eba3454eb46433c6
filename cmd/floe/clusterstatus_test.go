package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
)

// testClusterStatus is a group of three with one member unreachable.
var testClusterStatus = api.ClusterStatus{
	Leader: "127.0.0.1:7001",
	Term:   4,
	Members: []api.ClusterMember{
		{ID: "127.0.0.1:7001", RaftAddr: "127.0.0.1:7001", RESTAddr: "127.0.0.1:8081", Leader: true, Applied: 1207, Reachable: true},
		{ID: "127.0.0.1:7002", RaftAddr: "127.0.0.1:7002", RESTAddr: "127.0.0.1:8082", Applied: 1206, Reachable: true},
		{ID: "127.0.0.1:7003", RaftAddr: "127.0.0.1:7003"},
	},
}

// serveCluster serves st at GET /v1/cluster and returns the server's URL.
func serveCluster(t *testing.T, st api.ClusterStatus) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/cluster" {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(st)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// deadURL returns the URL of a port where nothing listens.
func deadURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return "http://" + l.Addr().String()
}

func TestClusterStatus(t *testing.T) {
	url := serveCluster(t, testClusterStatus)
	want := `Leader: 127.0.0.1:7001 (term 4)

MEMBER          RAFT ADDR       REST ADDR       LEADER  APPLIED
127.0.0.1:7001  127.0.0.1:7001  127.0.0.1:8081  yes     1207
127.0.0.1:7002  127.0.0.1:7002  127.0.0.1:8082  no      1206
127.0.0.1:7003  127.0.0.1:7003  -               no      unreachable
`
	if r := runFloe("cluster", "status", "--server", url); r.code != 0 || r.stdout != want {
		t.Errorf("got %+v, want stdout\n%s", r, want)
	}

	r := runFloe("cluster", "status", "-o", "json", "--server", url)
	var got api.ClusterStatus
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || !reflect.DeepEqual(got, testClusterStatus) {
		t.Errorf("cluster status -o json: %v, %s", err, r.stdout)
	}
	for _, key := range []string{`"leader"`, `"term"`, `"members"`, `"raftAddr"`, `"restAddr"`, `"applied"`, `"reachable"`} {
		if !strings.Contains(r.stdout, key) {
			t.Errorf("cluster status -o json lacks %s:\n%s", key, r.stdout)
		}
	}

	noLeader := api.ClusterStatus{Term: 5, Members: testClusterStatus.Members[1:2]}
	noLeader.Members[0].Leader = false
	want = `Leader: none known (term 5)

MEMBER          RAFT ADDR       REST ADDR       LEADER  APPLIED
127.0.0.1:7002  127.0.0.1:7002  127.0.0.1:8082  no      1206
`
	if r := runFloe("cluster", "status", "--server", serveCluster(t, noLeader)); r.code != 0 || r.stdout != want {
		t.Errorf("with no leader: got %+v, want stdout\n%s", r, want)
	}
}

// TestServerList gives the commands a list of schedulers, by flag and by
// $FLOE_SERVER, whose first is down: they use the next.
func TestServerList(t *testing.T) {
	dead, url := deadURL(t), serveCluster(t, testClusterStatus)
	if r := runFloe("cluster", "status", "--server", dead+","+url); r.code != 0 || !strings.HasPrefix(r.stdout, "Leader: 127.0.0.1:7001") {
		t.Errorf("--server DEAD,UP: got %+v", r)
	}
	t.Setenv("FLOE_SERVER", strings.TrimPrefix(dead, "http://")+", "+url)
	if r := runFloe("cluster", "status"); r.code != 0 || !strings.HasPrefix(r.stdout, "Leader: 127.0.0.1:7001") {
		t.Errorf("FLOE_SERVER=DEAD,UP: got %+v", r)
	}

	c := startCluster(t)
	if r := runFloe("job", "list", "--server", dead+","+c.url); r.code != 0 || !strings.Contains(r.stdout, "job-1") {
		t.Errorf("job list --server DEAD,UP: got %+v", r)
	}

	other := deadURL(t)
	r := runFloe("cluster", "status", "--server", dead+","+other)
	want := "floe cluster status: cannot reach any of the schedulers at " + dead + "," + other + ": is `floe scheduler` running?"
	if r.code != 1 || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("got %+v, want exit 1 and %q", r, want)
	}
	if r := runFloe("cluster", "status", "--server", url+",ftp://x"); r.code != 2 || !strings.Contains(r.stderr, `--server "ftp://x"`) {
		t.Errorf("a bad URL in the list: got %+v, want exit 2 naming it", r)
	}
	if r := runFloe("cluster", "status", "--server", " , "); r.code != 2 {
		t.Errorf("an empty list: got %+v, want exit 2", r)
	}
}

func TestClusterHelp(t *testing.T) {
	for _, args := range [][]string{{"cluster", "status", "--help"}, {"help", "cluster", "status"}} {
		r := runFloe(args...)
		if r.code != 0 || !strings.Contains(r.stdout, "Usage:\n  floe cluster status ") || r.stderr != "" {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
		for _, w := range []string{"-o, --output format", "--server URL", "comma-separated"} {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%q does not mention %s:\n%s", args, w, r.stdout)
			}
		}
	}
	for _, args := range [][]string{{"cluster", "--help"}, {"help", "cluster"}, {"cluster", "help"}} {
		if r := runFloe(args...); r.code != 0 || !strings.Contains(r.stdout, clusterLong) || !strings.Contains(r.stdout, "status") {
			t.Errorf("%q: %+v", args, r)
		}
	}
	if r := runFloe("--help"); !strings.Contains(r.stdout, "show the schedulers") {
		t.Errorf("floe --help does not mention floe cluster:\n%s", r.stdout)
	}
	if r := runFloe("cluster", "members"); r.code != 2 || !strings.Contains(r.stderr, `unknown command "members"`) {
		t.Errorf("an unknown subcommand: %+v", r)
	}
}
