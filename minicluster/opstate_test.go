package minicluster

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/scheduler/api"
)

// bufferSpec runs the conformance suite's buffer operator (operator list
// state: an even-split "buffer" and a union "members") after a keyBy, so
// that every subtask gets records at any parallelism.
const bufferSpec = `
name: buffers
modules: {conformance: conformance.wasm}
params: {rate: "0", size: "1"}
source:
  type: generator
  uid: numbers
  count: 30000
  rate: ${rate}
operators:
  - {type: keyBy, uid: spread, key: value}
  - {type: flatMap, uid: buffer, module: conformance, function: buffer}
sink:
  type: file
  uid: out
  path: ${output}
`

// TestOperatorListStateAcrossRescales buffers records in even-split
// operator state at parallelism 3 (groups of 1000, so a savepoint catches
// most of them buffered), stops with a savepoint, resumes at 5 and stops
// again, then at 1, both with groups of 1 so that every buffer drains.
// Every number must come out exactly once; and each savepoint's union
// "members" list must reach every subtask.
func TestOperatorListStateAcrossRescales(t *testing.T) {
	dir := t.TempDir()
	mod := module(t, dir, filepath.Join("conformance", "go"))
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "cluster"), TaskManagers: 2, Slots: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	out := filepath.Join(dir, "out")
	submit := func(par int, rate, size, from string) string {
		sub := api.Submission{
			Spec: []byte(bufferSpec), Parallelism: par, FromSavepoint: from,
			Params:             map[string]string{"output": out, "rate": rate, "size": size},
			Modules:            map[string][]byte{"conformance": mod},
			CheckpointInterval: 100 * time.Millisecond,
		}
		id, err := c.Scheduler.Submit(context.Background(), sub)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	stop := func(id string, par int, wantMembers []string) string {
		waitFor(t, func() bool { return countStatuses(t, c, id)[api.CheckpointCompleted] >= 2 })
		trig, err := c.Scheduler.Stop(context.Background(), id, "file://"+filepath.Join(dir, "savepoints"))
		if err != nil {
			t.Fatal(err)
		}
		sp := awaitSavepoint(t, c, id, trig)
		lists := savepointLists(t, strings.TrimPrefix(sp.Path, "file://"), "buffer/members")
		if len(lists) != par {
			t.Fatalf("savepoint of parallelism %d holds members lists of %d subtasks", par, len(lists))
		}
		for sub, l := range lists {
			for _, m := range append(wantMembers, "subtask-"+strconv.Itoa(sub)) {
				if !slices.Contains(l, m) {
					t.Errorf("parallelism %d, subtask %d: members %v lack %s", par, sub, l, m)
				}
			}
		}
		return sp.Path
	}
	sp3 := stop(submit(3, "1000", "1000", ""), 3, nil)
	sp5 := stop(submit(5, "1000", "1", sp3), 5, []string{"subtask-0", "subtask-1", "subtask-2"})
	finish(t, c, submit(1, "0", "1", sp5))

	seen := make([]int, 30000)
	parts, _ := filepath.Glob(filepath.Join(out, "part-*"))
	for _, p := range parts {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Fields(string(data)) {
			for _, v := range strings.Split(line, "+") {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n >= len(seen) {
					t.Fatalf("unexpected output %q in %s", line, p)
				}
				seen[n]++
			}
		}
	}
	bad := 0
	for n, k := range seen {
		if k != 1 && bad < 10 {
			t.Errorf("number %d came out %d times", n, k)
			bad++
		}
	}
}

// savepointLists returns, by subtask, the operator list ns of the stage
// that holds it in the savepoint at dir.
func savepointLists(t *testing.T, dir, ns string) map[int][]string {
	t.Helper()
	var metas []string
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err == nil && filepath.Base(p) == "_metadata" {
			metas = append(metas, p)
		}
		return nil
	})
	if len(metas) != 1 {
		t.Fatalf("want one _metadata under %s, found %v", dir, metas)
	}
	b, err := os.ReadFile(metas[0])
	if err != nil {
		t.Fatal(err)
	}
	var m ckmeta.Metadata
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	out := map[int][]string{}
	for _, s := range m.Subtasks {
		for _, l := range s.Operator {
			if l.Namespace == ns {
				for _, e := range l.Elems {
					out[s.Subtask] = append(out[s.Subtask], string(e))
				}
			}
		}
	}
	return out
}
