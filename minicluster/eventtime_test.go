package minicluster

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
)

// sessionSpec runs the conformance suite's session operator (event-time
// timers, udfs/conformance/README.md) over "key,timestamp" lines.
const sessionSpec = `
name: sessions
parallelism: 2
modules: {conformance: conformance.wasm}
params: {gap: "50", idle: "100000000"}
source:
  type: file
  uid: events
  parallelism: 1          # one reader: a file's halves are far apart in event time
  path: ${input}
  timestamps: {field: "csv:1", format: unix-ms}
  watermarks: {maxOutOfOrderness: 20ms, interval: 1ms}
operators:
  - {type: keyBy, uid: by-key, key: "csv:0"}
  - {type: process, uid: sessions, module: conformance, function: session}
sink:
  type: file
  uid: out
  path: ${output}
`

// TestEventTimeTimersFireOncePerSession runs sessions over out-of-order
// events: every event must be counted in exactly one fired session, each
// session's last timestamp must be one of its key's events, and no key may
// be left without a session at the end of the input (the final watermark
// fires every timer).
func TestEventTimeTimersFireOncePerSession(t *testing.T) {
	dir := t.TempDir()
	mod := module(t, dir, filepath.Join("conformance", "go"))
	// 200K events over 300 keys; event time advances 1 ms per 4 events,
	// and each event is up to 15 ms late (within the 20 ms bound), with
	// quiet spells of 200 ms (four gaps) that end sessions.
	r := rand.New(rand.NewPCG(3, 5))
	var b strings.Builder
	events := map[string]map[int64]int{}
	perKey := map[string]int64{}
	ts := int64(1_000_000)
	for i := range 200_000 {
		if i%20_000 == 0 {
			ts += 200
		}
		if i%4 == 0 {
			ts++
		}
		k := fmt.Sprintf("k%d", r.IntN(300))
		e := ts - r.Int64N(16)
		fmt.Fprintf(&b, "%s,%d\n", k, e)
		if events[k] == nil {
			events[k] = map[int64]int{}
		}
		events[k][e]++
		perKey[k]++
	}
	input := filepath.Join(dir, "events.csv")
	if err := os.WriteFile(input, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "data"), TaskManagers: 1, Slots: 4}, api.Submission{
		Spec:    []byte(sessionSpec),
		Params:  map[string]string{"input": input, "output": out},
		Modules: map[string][]byte{"conformance": mod},
	})
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	parts, err := filepath.Glob(filepath.Join(out, "part-*"))
	if err != nil || len(parts) == 0 {
		t.Fatalf("no output parts: %v", err)
	}
	counted := map[string]int64{}
	sessions := 0
	for _, p := range parts {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			f := strings.Split(line, ",")
			if len(f) != 4 || f[1] != "session" {
				t.Fatalf("unexpected output line %q", line)
			}
			n, _ := strconv.ParseInt(f[2], 10, 64)
			last, _ := strconv.ParseInt(f[3], 10, 64)
			if events[f[0]][last] == 0 {
				t.Errorf("session %q ends at %d, which is no event of %s", line, last, f[0])
			}
			counted[f[0]] += n
			sessions++
		}
	}
	for k, n := range perKey {
		if counted[k] != n {
			t.Errorf("key %s: sessions count %d events, want %d", k, counted[k], n)
		}
	}
	if len(counted) != len(perKey) {
		t.Errorf("%d keys in sessions, want %d", len(counted), len(perKey))
	}
	// The quiet spells end sessions before the input does: with only the
	// final watermark there would be one session per key.
	if sessions <= len(perKey) {
		t.Errorf("%d sessions for %d keys: watermarks did not advance during the job", sessions, len(perKey))
	}
	t.Logf("%d sessions over %d keys", sessions, len(perKey))
}

// TestEndOfInputFiresEventTimersOnly pins down what a bounded job does with
// the timers left when its input ends (docs/event-time.md, "Timers at the
// end of input"): the final watermark fires every event-time timer, and
// the processing-time timers still pending (here each key's idle timer,
// more than a day away) do not fire, as in Flink: the job neither fires nor
// waits for them (had it waited, their "idle" lines would be in the output).
func TestEndOfInputFiresEventTimersOnly(t *testing.T) {
	dir := t.TempDir()
	mod := module(t, dir, filepath.Join("conformance", "go"))
	input := filepath.Join(dir, "events.csv")
	if err := os.WriteFile(input, []byte("a,1000\nb,1001\na,1002\nc,1003\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "data"), TaskManagers: 1, Slots: 2}, api.Submission{
		Spec:    []byte(sessionSpec),
		Params:  map[string]string{"input": input, "output": out},
		Modules: map[string][]byte{"conformance": mod},
	})
	if st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	parts, err := filepath.Glob(filepath.Join(out, "part-*"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, p := range parts {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Fields(string(data))...)
	}
	slices.Sort(lines)
	want := []string{"a,session,2,1002", "b,session,1,1001", "c,session,1,1003"}
	if !slices.Equal(lines, want) {
		t.Errorf("output %q, want %q: every event-time timer and no processing-time (idle) timer fires", lines, want)
	}
}
