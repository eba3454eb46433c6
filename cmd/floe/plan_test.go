package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
