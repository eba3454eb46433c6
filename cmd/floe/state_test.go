package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
)

// startStateCluster starts a cluster whose job-1 has the queryable states
// counts (int64), names (string), docs (json) and blobs (bytes), and the
// state hidden, which is not queryable.
func startStateCluster(t *testing.T) *cluster {
	t.Helper()
	c := startCluster(t)
	for _, s := range []struct{ name, typ string }{{"counts", "int64"}, {"names", "string"}, {"docs", "json"}, {"blobs", "bytes"}} {
		c.fake.AddState("job-1", s.name, s.typ, true)
	}
	c.fake.AddState("job-1", "hidden", "int64", false)
	c.fake.PutState("job-1", "counts", "the", binary.LittleEndian.AppendUint64(nil, 42))
	c.fake.PutState("job-1", "counts", "a/b", binary.LittleEndian.AppendUint64(nil, uint64(1<<63-1)))
	c.fake.PutState("job-1", "names", "n", []byte("two\tlines\n"))
	c.fake.PutState("job-1", "names", "plain", []byte("héllo world"))
	c.fake.PutState("job-1", "docs", "d", []byte("{\n  \"a\": [1, 2]\n}"))
	c.fake.PutState("job-1", "blobs", "b", []byte{0, 0xff})
	return c
}

func TestStateGet(t *testing.T) {
	c := startStateCluster(t)
	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"one key", []string{"--state", "counts", "the"}, 0, "the\t42\n", ""},
		{"keys in order", []string{"--state", "counts", "a/b", "the"}, 0, "a/b\t9223372036854775807\nthe\t42\n", ""},
		{"a missing key", []string{"--state", "counts", "the", "nope", "a/b"}, 1,
			"the\t42\nnope\t(not found)\na/b\t9223372036854775807\n", "floe state get: 1 of 3 keys not found\n"},
		{"only a missing key", []string{"--state", "counts", "nope"}, 1, "nope\t(not found)\n", "floe state get: 1 of 1 keys not found\n"},
		{"strings", []string{"--state", "names", "plain", "n", "line\nbreak"}, 1,
			"plain\théllo world\nn\t\"two\\tlines\\n\"\n\"line\\nbreak\"\t(not found)\n", "floe state get: 1 of 3 keys not found\n"},
		{"json", []string{"--state", "docs", "d"}, 0, "d\t{\"a\":[1,2]}\n", ""},
		{"bytes", []string{"--state", "blobs", "b"}, 0, "b\tAP8=\n", ""},
		{"flags after the keys", []string{"the", "--state", "counts"}, 0, "the\t42\n", ""},
		{"a key like a flag", []string{"--state", "counts", "--", "-x"}, 1, "-x\t(not found)\n", "floe state get: 1 of 1 keys not found\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"state", "get", "--job", "job-1", "--server", c.url}, tt.args...)
			r := runFloe(args...)
			if r.code != tt.code || r.stdout != tt.stdout || r.stderr != tt.stderr {
				t.Errorf("got %+v, want exit %d, stdout %q, stderr %q", r, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

func TestStateGetJSON(t *testing.T) {
	c := startStateCluster(t)
	r := runFloe("state", "get", "--job", "job-1", "--state", "counts", "-o", "json", "--server", c.url, "a/b", "nope")
	var out struct{ Values []map[string]any }
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 1 || len(out.Values) != 2 {
		t.Fatalf("got %+v, %v", r, err)
	}
	// NB: the number must come out exactly; a float64 on its way would
	// round it.
	if !strings.Contains(r.stdout, `"value": 9223372036854775807`) || out.Values[0]["raw"] != "/////////38=" ||
		out.Values[1]["found"] != false || out.Values[1]["type"] != "int64" || out.Values[1]["value"] != nil {
		t.Errorf("got\n%s", r.stdout)
	}
	r = runFloe("state", "get", "--job", "job-1", "--state", "docs", "-o", "json", "--server", c.url, "d")
	if want := "{\n  \"values\": [\n    {\n      \"key\": \"d\",\n      \"found\": true,\n      \"type\": \"json\",\n" +
		"      \"value\": {\n        \"a\": [\n          1,\n          2\n        ]\n      },\n"; r.code != 0 || !strings.HasPrefix(r.stdout, want) {
		t.Errorf("got %+v, want stdout starting\n%s", r, want)
	}
}

func TestStateGetEnv(t *testing.T) {
	c := startStateCluster(t)
	t.Setenv("FLOE_SERVER", strings.TrimPrefix(c.url, "http://"))
	if r := runFloe("state", "get", "--job", "job-1", "--state", "counts", "the"); r.code != 0 || r.stdout != "the\t42\n" {
		t.Errorf("got %+v", r)
	}
}

// TestStateGetErrors runs command lines that fail, with the exit code and
// the message each should give.
func TestStateGetErrors(t *testing.T) {
	c := startStateCluster(t)
	runFloe("job", "submit", writeTestJob(t, true), "--server", c.url)
	c.fake.AddState("job-2", "counts", "int64", true)
	c.fake.SetState("job-2", api.JobCanceled, "")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // a substring of stderr
	}{
		{"no command", nil, 2, "Available Commands:"},
		{"unknown command", []string{"put"}, 2, `floe: unknown command "put" for "floe state"`},
		{"no job", []string{"get", "--state", "counts", "k"}, 2, "floe state get: missing --job ID"},
		{"no state", []string{"get", "--job", "job-1", "k"}, 2, "floe state get: missing --state NAME"},
		{"no key", []string{"get", "--job", "job-1", "--state", "counts"}, 2, "floe state get: missing KEY"},
		{"bad output", []string{"get", "--job", "job-1", "--state", "counts", "-o", "yaml", "k"}, 2, `-o "yaml": want text or json`},
		{"bad retries", []string{"get", "--job", "job-1", "--state", "counts", "--retries", "-1", "k"}, 2, "--retries -1: want 0 or more"},
		{"bad retry wait", []string{"get", "--job", "job-1", "--state", "counts", "--retry-wait", "-1s", "k"}, 2, "--retry-wait -1s"},
		{"unknown flag", []string{"get", "--jbo", "job-1"}, 2, "unknown flag: --jbo"},
		{"bad server", []string{"get", "--job", "job-1", "--state", "counts", "k", "--server", "ftp://x"}, 2, `--server "ftp://x"`},
		{"unknown job", []string{"get", "--job", "job-9", "--state", "counts", "k"}, 1, `floe state get: not found: no job "job-9"`},
		{"unknown state", []string{"get", "--job", "job-1", "--state", "nope", "k"}, 1,
			`floe state get: not found: job job-1 has no state named "nope" (its states: blobs, counts, docs, hidden, names)`},
		{"not queryable", []string{"get", "--job", "job-1", "--state", "hidden", "k"}, 1,
			`floe state get: forbidden: state "hidden" of job job-1 is not declared queryable`},
		{"ended job", []string{"get", "--job", "job-2", "--state", "counts", "k", "k2"}, 1,
			"floe state get: conflict: job job-2 is CANCELED; its state is gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"state"}, tt.args...)
			if !slices.Contains(tt.args, "--server") {
				args = append(args, "--server="+c.url)
			}
			r := runFloe(args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", r.code, r.stdout, r.stderr, tt.code, tt.stderr)
			}
		})
	}
}

// TestStateGetRetries checks that a 503 is retried, as often as --retries
// says, with waits that double.
func TestStateGetRetries(t *testing.T) {
	moving := fmt.Errorf("%w: job job-1 is RESTARTING; its state is moving", api.ErrUnavailable)
	tests := []struct {
		name           string
		fails          int
		retries        string
		queries        int
		code           int
		stdout, stderr string
	}{
		{"recovers", 2, "4", 3, 0, "the\t42\n", ""},
		{"recovers at the last retry", 2, "2", 3, 0, "the\t42\n", ""},
		{"gives up", 3, "2", 3, 1, "", "floe state get: unavailable: job job-1 is RESTARTING; its state is moving (gave up after 2 retries)\n"},
		{"no retries", 1, "0", 1, 1, "", "floe state get: unavailable: job job-1 is RESTARTING; its state is moving\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startStateCluster(t)
			for range tt.fails {
				c.fake.FailQueries("job-1", moving)
			}
			start := time.Now()
			r := runFloe("state", "get", "--job", "job-1", "--state", "counts", "the", "--server", c.url,
				"--retries", tt.retries, "--retry-wait", "5ms")
			if r.code != tt.code || r.stdout != tt.stdout || r.stderr != tt.stderr {
				t.Errorf("got %+v, want exit %d, stdout %q, stderr %q", r, tt.code, tt.stdout, tt.stderr)
			}
			if n := len(c.fake.Queries()); n != tt.queries {
				t.Errorf("%d queries, want %d", n, tt.queries)
			}
			// Waits of 5ms, 10ms, 20ms...: 5ms * (2^waits - 1) in all.
			least := 5 * time.Millisecond * time.Duration(1<<(tt.queries-1)-1)
			if waited := time.Since(start); waited < least {
				t.Errorf("took %v, want at least %v", waited, least)
			}
		})
	}
}

func TestFirstWait(t *testing.T) {
	tests := []struct {
		err  error
		want time.Duration
	}{
		{&client.Error{StatusCode: 503, RetryAfter: 3 * time.Second}, 3 * time.Second},
		{fmt.Errorf("query: %w", &client.Error{StatusCode: 503, RetryAfter: time.Second}), time.Second},
		{&client.Error{StatusCode: 503}, time.Second},
		{errors.New("other"), time.Second},
	}
	for _, tt := range tests {
		if got := firstWait(tt.err); got != tt.want {
			t.Errorf("firstWait(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestStateUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	r := runFloe("state", "get", "--job", "j", "--state", "s", "k", "--server", url)
	want := "floe state get: cannot reach the scheduler at " + url + ": is `floe scheduler` running?"
	if r.code != 1 || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("got %+v, want exit 1 and %q", r, want)
	}
}

func TestStateHelp(t *testing.T) {
	for _, args := range [][]string{{"state", "get", "--help"}, {"help", "state", "get"}, {"state", "help", "get"}} {
		r := runFloe(args...)
		if r.code != 0 || !strings.Contains(r.stdout, "Usage:\n  floe state get --job ID --state NAME KEY... ") || r.stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
		for _, w := range []string{"--job ID", "--state NAME", "-o, --output format", "--retries", "--retry-wait", "--server URL", "Exits 0 if every key"} {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%q does not mention %s:\n%s", args, w, r.stdout)
			}
		}
	}
	for _, args := range [][]string{{"state", "--help"}, {"help", "state"}, {"state", "help"}} {
		if r := runFloe(args...); r.code != 0 || !strings.Contains(r.stdout, stateLong) {
			t.Errorf("%q: %+v", args, r)
		}
	}
	if r := runFloe("--help"); !strings.Contains(r.stdout, "read keys of a job's queryable state") {
		t.Errorf("floe --help does not mention floe state:\n%s", r.stdout)
	}
}
