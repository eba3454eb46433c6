package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
)

func intp(n int) *int { return &n }

func TestJobExceptions(t *testing.T) {
	c := startCluster(t)
	if r := runFloe("job", "exceptions", "job-1", "--server", c.url); r.code != 0 || r.stdout != "no failures\n" {
		t.Errorf("no failures: %+v", r)
	}
	at := clienttest.Start.Add(time.Minute)
	c.fake.AddException("job-1", api.Exception{Time: at, Attempt: 1, TaskManager: "tm-2", Message: "task manager tm-2 at h:1 lost: no heartbeat for 10s"})
	c.fake.AddException("job-1", api.Exception{Time: at.Add(time.Second), Attempt: 2, Vertex: "by-word -> count", Stage: intp(1), Subtask: intp(3),
		TaskManager: "tm-1", Operator: "count", Module: "wc", Function: "count", Key: `"user-7"`, Record: `"error"`,
		Message: "module \"wc\" function \"count\": poison record\nguest stderr: boom"})
	r := runFloe("job", "exceptions", "job-1", "--server", c.url)
	want := `2025-01-02T03:05:06Z  attempt 2  vertex 1 by-word -> count, subtask 3  on tm-1
  operator count, module wc, function count, key "user-7", record "error"
  module "wc" function "count": poison record
  guest stderr: boom

2025-01-02T03:05:05Z  attempt 1  the whole attempt  on tm-2
  task manager tm-2 at h:1 lost: no heartbeat for 10s
`
	if r.code != 0 || r.stdout != want || r.stderr != "" {
		t.Errorf("got %+v\nwant stdout:\n%s", r, want)
	}
	r = runFloe("job", "exceptions", "job-1", "-o", "json", "--server", c.url)
	var x api.Exceptions
	if err := json.Unmarshal([]byte(r.stdout), &x); err != nil || r.code != 0 || len(x.Exceptions) != 2 || x.Exceptions[0].Key != `"user-7"` {
		t.Errorf("-o json: %+v (%v)", r, err)
	}
	if r := runFloe("job", "exceptions", "job-9", "--server", c.url); r.code != 1 || !strings.Contains(r.stderr, `no job "job-9"`) {
		t.Errorf("unknown job: %+v", r)
	}
}

// logLine is line n of the fake's logs: seq n, of subtask n%2 of vertex
// "src -> talk".
func logLine(n int) api.LogLine {
	return api.LogLine{Seq: int64(n), Time: clienttest.Start.Add(time.Duration(n) * time.Millisecond), Level: "INFO",
		Vertex: "src -> talk", Stage: 0, Subtask: n % 2, Attempt: 1, TaskManager: fmt.Sprint("tm-", n%2+1), Operator: "talk",
		Message: fmt.Sprint("line ", n)}
}

func TestJobLogs(t *testing.T) {
	c := startCluster(t)
	for n := 1; n <= 4; n++ {
		c.fake.AddLog("job-1", logLine(n))
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"all", nil, "2025-01-02T03:04:05.001Z INFO  src -> talk[1] tm-2 talk: line 1\n" +
			"2025-01-02T03:04:05.002Z INFO  src -> talk[0] tm-1 talk: line 2\n" +
			"2025-01-02T03:04:05.003Z INFO  src -> talk[1] tm-2 talk: line 3\n" +
			"2025-01-02T03:04:05.004Z INFO  src -> talk[0] tm-1 talk: line 4\n"},
		{"since", []string{"--since", "2"}, "2025-01-02T03:04:05.003Z INFO  src -> talk[1] tm-2 talk: line 3\n" +
			"2025-01-02T03:04:05.004Z INFO  src -> talk[0] tm-1 talk: line 4\n"},
		{"a subtask", []string{"--vertex", "0", "--subtask", "0"}, "2025-01-02T03:04:05.002Z INFO  src -> talk[0] tm-1 talk: line 2\n" +
			"2025-01-02T03:04:05.004Z INFO  src -> talk[0] tm-1 talk: line 4\n"},
		{"a vertex by name", []string{"--vertex", "src -> talk", "--since", "3"}, "2025-01-02T03:04:05.004Z INFO  src -> talk[0] tm-1 talk: line 4\n"},
		{"no line", []string{"--vertex", "other"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runFloe(append([]string{"job", "logs", "job-1", "--server", c.url}, tc.args...)...)
			if r.code != 0 || r.stdout != tc.want || r.stderr != "" {
				t.Errorf("got %+v\nwant stdout:\n%s", r, tc.want)
			}
		})
	}
	r := runFloe("job", "logs", "job-1", "-o", "json", "--since", "3", "--server", c.url)
	var l api.LogLine
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil || l != logLine(4) {
		t.Errorf("-o json: %+v (%v)", r, err)
	}
	for _, bad := range [][]string{{"--subtask", "1"}, {"--since", "yesterday"}, {"--vertex", "0", "--subtask", "-2"}, {"-f", "--poll", "0s"}} {
		if r := runFloe(append([]string{"job", "logs", "job-1", "--server", c.url}, bad...)...); r.code != 2 {
			t.Errorf("%q: got %+v, want exit 2", bad, r)
		}
	}
}

// arriving serves a job whose log gains a line on every call of Logs, up
// to last, so that each poll of a follower has something new.
type arriving struct {
	*clienttest.Fake
	mu         sync.Mutex
	next, last int
	sinces     []int64
}

func (a *arriving) Logs(ctx context.Context, id string, q api.LogQuery) (api.Logs, error) {
	a.mu.Lock()
	a.sinces = append(a.sinces, q.Since)
	if a.next <= a.last {
		a.Fake.AddLog(id, logLine(a.next))
		a.next++
	}
	a.mu.Unlock()
	return a.Fake.Logs(ctx, id, q)
}

// TestJobLogsFollow follows a job whose lines arrive between polls until
// it ends: every line is printed once, in order, each poll asking from the
// last line it had.
func TestJobLogsFollow(t *testing.T) {
	svc := &arriving{Fake: clienttest.NewFake(), next: 1, last: 3}
	url := clienttest.NewServer(t, svc).URL
	if r := runFloe("job", "submit", writeTestJob(t, true), "--server", url); r.code != 0 {
		t.Fatalf("submit: %+v", r)
	}
	svc.Script("job-1", api.Event{State: api.JobRunning}, api.Event{State: api.JobRunning}, api.Event{State: api.JobFinished})
	r := runFloe("job", "logs", "job-1", "-f", "--poll", "1ms", "--server", url)
	want := "2025-01-02T03:04:05.001Z INFO  src -> talk[1] tm-2 talk: line 1\n" +
		"2025-01-02T03:04:05.002Z INFO  src -> talk[0] tm-1 talk: line 2\n" +
		"2025-01-02T03:04:05.003Z INFO  src -> talk[1] tm-2 talk: line 3\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("got %+v\nwant stdout:\n%s", r, want)
	}
	// Three polls while the job ran, each with a new line, and one after
	// it ended.
	if got := fmt.Sprint(svc.sinces); got != "[0 1 2 3]" {
		t.Errorf("polled since %s, want [0 1 2 3]", got)
	}
}

// TestJobStatusWatch watches a job through three states: without a
// terminal, each refresh prints the whole status under a line of its own,
// and the command returns once the job has ended.
func TestJobStatusWatch(t *testing.T) {
	c := startCluster(t)
	c.fake.Script("job-1", api.Event{State: api.JobRestarting, Message: "restart 1 of 3"}, api.Event{State: api.JobRunning},
		api.Event{State: api.JobFinished})
	r := runFloe("job", "status", "job-1", "--watch", "--interval", "1ms", "--server", c.url)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("got %+v", r)
	}
	var states []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if s, ok := strings.CutPrefix(line, "State:"); ok {
			states = append(states, strings.TrimSpace(s))
		}
	}
	if got := strings.Join(states, " "); got != "RESTARTING RUNNING FINISHED" || strings.Count(r.stdout, "--- ") != 3 || strings.Contains(r.stdout, "\033") {
		t.Errorf("states %q, %d refreshes; want RESTARTING RUNNING FINISHED in 3, without terminal codes:\n%s", got, strings.Count(r.stdout, "--- "), r.stdout)
	}
	if r := runFloe("job", "status", "job-1", "--watch", "--interval", "-1s", "--server", c.url); r.code != 2 {
		t.Errorf("a negative interval: %+v", r)
	}
}

func TestObserveHelp(t *testing.T) {
	for cmd, want := range map[string][]string{
		"exceptions": {"-o, --output format", "--server URL"},
		"logs":       {"-f, --follow", "--vertex", "--subtask", "--since", "--poll", "-o, --output format", "--server URL"},
		"status":     {"--watch", "--interval", "-o, --output format"},
	} {
		r := runFloe("job", cmd, "--help")
		if r.code != 0 || !strings.Contains(r.stdout, "Usage:\n  floe job "+cmd+" ") {
			t.Errorf("%s --help: %+v", cmd, r)
		}
		for _, w := range want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%s --help does not mention %s", cmd, w)
			}
		}
	}
	usage := runFloe("job", "--help").stdout
	for _, cmd := range []string{"exceptions", "logs", "metrics"} {
		if !strings.Contains(usage, cmd) {
			t.Errorf("floe job's usage does not mention %q", cmd)
		}
	}
}
