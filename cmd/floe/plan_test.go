package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
)

const planSpecYAML = `
name: clicks
parallelism: 2
modules: {m: m.wasm}
sources:
  - {type: generator, uid: web, count: 10}
  - {type: generator, uid: app, count: 10, parallelism: 1}
operators:
  - {type: union, uid: all, inputs: [web, app]}
  - {type: keyBy, uid: by-user, key: "csv:0"}
  - {type: process, uid: sessions, module: m, function: f}
sinks:
  - {type: stdout, uid: print}
  - {type: file, uid: archive, path: /tmp/out, parallelism: 1}
`

func TestPlanPrintsTheGraphAndItsStages(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(spec, []byte(planSpecYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := floe([]string{"plan", spec, "--parallelism", "3"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	want := `job clicks

graph:
  source web (generator) x3
  source app (generator) x1
  union all <- web, app
  keyBy by-user <- all
  process sessions x3 <- by-user
  sink print (stdout) x3 <- sessions
  sink archive (file) x1 <- sessions

stages:
  stage 0 [web -> by-user] x3 --hash--> 2
  stage 1 [app -> by-user] x1 --hash--> 2
  stage 2 [sessions] x3 --forward--> 3, --rebalance--> 4
  stage 3 [print] x3
  stage 4 [archive] x1
`
	if out.String() != want {
		t.Errorf("floe plan printed\n%s\nwant\n%s", out.String(), want)
	}
}

// TestPlanPrintsABroadcastInput plans udfs/rules/job.yaml: the coProcess
// names its broadcast input, which reaches it over a broadcast edge.
func TestPlanPrintsABroadcastInput(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"plan", filepath.Join("..", "..", "udfs", "rules", "job.yaml"),
		"--set", "events=/e", "--set", "rules=/r", "--set", "output=/o"}
	if code := floe(args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{
		"  coProcess apply x2 <- by-user, rules (broadcast rules)\n",
		"  stage 1 [rules] x1 --broadcast--> 2\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("floe plan printed\n%s\nwithout %q", out.String(), want)
		}
	}
}

func TestPlanRefusesABadGraphWithItsLine(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "job.yaml")
	bad := strings.Replace(planSpecYAML, "inputs: [web, app]", "inputs: [web, apps]", 1)
	if err := os.WriteFile(spec, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := floe([]string{"plan", spec}, &out, &errOut)
	want := spec + `:9: operators[0].inputs[1]: "apps" is not the uid of a source or an operator (known: all, app, by-user, sessions, web)`
	if code != 1 || !strings.Contains(errOut.String(), want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut.String(), want)
	}
}

func TestStatusPrintsTheEdgesOfAGraph(t *testing.T) {
	v := func(stage int, name string, inputs ...api.VertexInput) api.VertexStatus {
		return api.VertexStatus{Stage: stage, Name: name, Parallelism: 1, Inputs: inputs}
	}
	job := api.JobStatus{ID: "j1", Name: "clicks", State: api.JobRunning, Vertices: []api.VertexStatus{
		v(0, "web -> by-user"), v(1, "app -> by-user"),
		v(2, "sessions", api.VertexInput{Stage: 0, Partitioning: "hash"}, api.VertexInput{Stage: 1, Partitioning: "hash"}),
		v(3, "print", api.VertexInput{Stage: 2, Partitioning: "forward"}),
	}}
	var out bytes.Buffer
	if err := printStatus(&out, job); err != nil {
		t.Fatal(err)
	}
	want := `
Edges:
  0 web -> by-user --hash--> 2 sessions
  1 app -> by-user --hash--> 2 sessions
  2 sessions --forward--> 3 print
`
	if !strings.Contains(out.String(), want) {
		t.Errorf("status:\n%s\nwant it to hold:%s", out.String(), want)
	}
	// A line shows no edges.
	line := job
	line.Vertices = []api.VertexStatus{v(0, "src"), v(1, "out", api.VertexInput{Stage: 0, Partitioning: "forward"})}
	out.Reset()
	if err := printStatus(&out, line); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "Edges:") {
		t.Errorf("a line's status shows edges:\n%s", out.String())
	}
}
