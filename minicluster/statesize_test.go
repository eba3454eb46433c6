package minicluster

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/textgen"
)

// TestStateSizeOfTheCountingOperator runs word count, on each state
// backend, over a text whose distinct words the test counts itself, and
// checks the live state size that the task managers and the scheduler
// report for the counting operator: one key per distinct word, and bytes
// worked out from the state's key layout (storage/state) and the 8-byte
// counter the module keeps.
func TestStateSizeOfTheCountingOperator(t *testing.T) {
	dir := t.TempDir()
	var text bytes.Buffer
	if err := textgen.Write(&text, 20_000, 17); err != nil {
		t.Fatal(err)
	}
	counts := textgen.Count(text.Bytes())
	keys := float64(len(counts))
	// A store key is the key group (2 bytes), the namespace's length (1)
	// and the namespace "count/counts", the word's uvarint length and the
	// word; the value is an int64 of 8 bytes.
	var size float64
	for w := range counts {
		size += float64(2 + 1 + len("count/counts") + len(binary.AppendUvarint(nil, uint64(len(w)))) + len(w) + 8)
	}
	input := filepath.Join(dir, "input.txt")
	if err := os.WriteFile(input, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, backend := range []string{"pebble", "memory"} {
		t.Run(backend, func(t *testing.T) {
			dir := filepath.Join(dir, backend)
			c, err := Start(context.Background(), Config{DataDir: dir, TaskManagers: 2, Slots: 1,
				MetricsAddr: "127.0.0.1:0", RESTAddr: "127.0.0.1:0"})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := c.Close(); err != nil {
					t.Error(err)
				}
			}()
			sub := wordcount(t, dir, input, filepath.Join(dir, "out"), "state:\n  backend: "+backend+"\n", 2)
			id, err := c.Scheduler.Submit(context.Background(), sub)
			if err != nil {
				t.Fatal(err)
			}
			if st := awaitEnd(t, c, id); st.State != api.JobFinished {
				t.Fatalf("job %s: %s", st.State, st.Message)
			}

			op := map[string]string{"job": id, "operator": "count"}
			tm := scrape(t, c.MetricsAddr())
			sched := scrape(t, c.Scheduler.RESTAddr())
			for _, w := range []struct {
				from   scraped
				name   string
				labels map[string]string
				want   float64
			}{
				{tm, "floe_operator_state_keys", op, keys},
				{tm, "floe_operator_state_bytes", op, size},
				{sched, "floe_job_operator_state_keys", op, keys},
				{sched, "floe_job_operator_state_bytes", op, size},
			} {
				if got := w.from.mustSum(t, w.name, w.labels); got != w.want {
					t.Errorf("%s%v = %v, want %v", w.name, w.labels, got, w.want)
				}
			}
			// The split operator runs in a stage without keyed state.
			for _, name := range []string{"floe_operator_state_keys", "floe_job_operator_state_keys"} {
				for _, m := range []scraped{tm, sched} {
					if got, ok := m.sum(name, map[string]string{"job": id, "operator": "split"}); ok {
						t.Errorf("%s{operator=split} = %v, want no series", name, got)
					}
				}
			}
			// Each subtask holds some of the words.
			if f := tm["floe_operator_state_keys"]; len(f.GetMetric()) != 2 {
				t.Errorf("floe_operator_state_keys has %d series, want one per subtask of count", len(f.GetMetric()))
			}

			jm := jobMetrics(t, c, id)
			if len(jm.Vertices) != 2 {
				t.Fatalf("%d vertices, want 2", len(jm.Vertices))
			}
			if s := jm.Vertices[0].OperatorStates; s != nil {
				t.Errorf("vertex 0 has operator states %+v, want none", s)
			}
			want := []api.OperatorState{{Operator: "count", Keys: int64(keys), Bytes: int64(size)}}
			if got := jm.Vertices[1].OperatorStates; len(got) != 1 || got[0] != want[0] {
				t.Errorf("vertex 1 operator states %+v, want %+v", got, want)
			}
			var sum int64
			for _, s := range jm.Vertices[1].Subtasks {
				if len(s.OperatorStates) != 1 {
					t.Fatalf("subtask %d: operator states %+v, want count's", s.Subtask, s.OperatorStates)
				}
				sum += s.OperatorStates[0].Keys
			}
			if sum != int64(keys) {
				t.Errorf("subtasks' keys add up to %d, want %v", sum, keys)
			}
		})
	}
}

// jobMetrics reads GET /v1/jobs/{id}/metrics.
func jobMetrics(t *testing.T, c *Cluster, id string) api.JobMetrics {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + c.Scheduler.RESTAddr() + "/v1/jobs/" + id + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var jm api.JobMetrics
	if err := json.NewDecoder(resp.Body).Decode(&jm); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/jobs/%s/metrics: %s, %v", id, resp.Status, err)
	}
	return jm
}

// TestStateSizeOfWindowsEndsAtZero runs Nexmark q7, a tumbling event-time
// window, to its end. The window operator's state (its windows, buffered
// bids and timers) is reported for each of its subtasks, and once the
// final watermark has fired and purged every window it is empty again: the
// removals are counted as well as the additions.
func TestStateSizeOfWindowsEndsAtZero(t *testing.T) {
	dir := t.TempDir()
	mod := nexmarkModule(t, dir)
	input, queries := bidsAndQueries(t, dir, 5_000)
	q7 := queries[1]
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "data"), TaskManagers: 1, Slots: 6,
		MetricsAddr: "127.0.0.1:0", RESTAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	out := filepath.Join(dir, "out")
	id, err := c.Scheduler.Submit(context.Background(), api.Submission{
		Spec:    []byte(nexmarkOverFile(q7.operators)),
		Params:  map[string]string{"input": input, "output": out},
		Modules: map[string][]byte{"nexmark": mod},
	})
	if err != nil {
		t.Fatal(err)
	}
	if st := awaitEnd(t, c, id); st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	checkLines(t, out, q7.want)
	op := map[string]string{"job": id, "operator": "max-bid"}
	tm := scrape(t, c.MetricsAddr())
	if f := tm["floe_operator_state_keys"]; len(f.GetMetric()) != 2 {
		t.Fatalf("floe_operator_state_keys has %d series, want one per subtask of max-bid", len(f.GetMetric()))
	}
	for _, name := range []string{"floe_operator_state_keys", "floe_operator_state_bytes"} {
		if got := tm.mustSum(t, name, op); got != 0 {
			t.Errorf("%s%v = %v after every window fired, want 0", name, op, got)
		}
	}
	if got := scrape(t, c.Scheduler.RESTAddr()).mustSum(t, "floe_job_operator_state_keys", op); got != 0 {
		t.Errorf("floe_job_operator_state_keys%v = %v, want 0", op, got)
	}
}
