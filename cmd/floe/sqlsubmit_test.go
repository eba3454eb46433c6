package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler"
)

// TestSQLServerCompilesOnTheScheduler sends scripts with floe sql
// --server to a real scheduler that compiles them (POST /v1/sql): a good
// one becomes a job, a bad one's error names its line and column, and a
// function whose module is a path is refused, since the scheduler reads no
// path a client names.
func TestSQLServerCompilesOnTheScheduler(t *testing.T) {
	s, err := scheduler.NewServer(scheduler.Config{RPCAddr: "127.0.0.1:0", RESTAddr: "127.0.0.1:0", DataDir: t.TempDir(), CompileSQL: compileSQLForServer})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("scheduler: %v", err)
		}
	})
	server := "http://" + s.RESTAddr()
	dir := t.TempDir()
	script := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := writeSQL(t, dir, "")
	bad := script("bad.sql", "CREATE TABLE t (a BIGINT) WITH (connector = 'file', path = 'in');\n"+
		"CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT b FROM t;\n")
	byPath := script("path.sql", "CREATE TABLE t (a BIGINT) WITH (connector = 'file', path = 'in');\n"+
		"CREATE FUNCTION f(a BIGINT) RETURNS BIGINT AS '/etc/passwd';\n"+
		"CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT f(a) FROM t;\n")

	r := runFloe("sql", "--server", server, "-f", good, "--set", "input=/in.csv", "--set", "output=/out", "--parallelism", "3")
	if r.code != 0 || strings.TrimSpace(r.stdout) == "" {
		t.Fatalf("a good script: %+v, want exit 0 and the job's id", r)
	}
	job, err := s.Job(ctx, strings.TrimSpace(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	if job.Name != "totals" {
		t.Errorf("the job is named %q, want totals, after the script", job.Name)
	}
	for _, c := range []struct {
		name, path, want string
	}{
		{"bad", bad, `line 3, column 22: unknown column "b" (t has: a)`},
		{"module path", byPath, "line 2, column 1: f: a script sent to a cluster names its module by digest"},
		{"no parameter", good, "line 3, column 29: table bids: path: parameter \"input\" has no value"},
	} {
		r := runFloe("sql", "--server", server, "-f", c.path)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: %+v, want exit 1 saying %s", c.name, r, c.want)
		}
	}
}

// TestSQLRunsAWasmFunction runs a script whose function's module is a
// path relative to the script, udfs/sqlfns built from its sources: the
// sink holds price_band of each price, worked out by hand.
func TestSQLRunsAWasmFunction(t *testing.T) {
	dir := t.TempDir()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wasmbuild.Go(filepath.Join(root, "udfs", "sqlfns"), filepath.Join(dir, "fns")); err != nil {
		t.Fatal(err)
	}
	input, output := filepath.Join(dir, "bids.csv"), filepath.Join(dir, "out")
	if err := os.WriteFile(input, []byte("1,50\n2,700\n3,\n4,699\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "CREATE FUNCTION price_band(p BIGINT) RETURNS VARCHAR LANGUAGE wasm AS 'fns/sqlfns.wasm';\n" +
		"CREATE TABLE bids (auction BIGINT, price BIGINT) WITH (connector = 'file', path = '${input}');\n" +
		"CREATE TABLE o (auction BIGINT, band VARCHAR) WITH (connector = 'file', path = '${output}');\n" +
		"INSERT INTO o SELECT auction, price_band(price) FROM bids;\n"
	script := filepath.Join(dir, "bands.sql")
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runFloe("sql", "-f", script, "--set", "input="+input, "--set", "output="+output, "--progress", "0", "--data-dir", filepath.Join(dir, "data"))
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	var got []string
	parts, _ := filepath.Glob(filepath.Join(output, "part-*"))
	for _, p := range parts {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Fields(string(data))...)
	}
	slices.Sort(got)
	if want := []string{"1,low", "2,high", "3,", "4,mid"}; !slices.Equal(got, want) {
		t.Errorf("the sink holds %q, want %q", got, want)
	}
	// A function the module does not export is refused at its CREATE
	// FUNCTION.
	missing := strings.Replace(src, "price_band", "price_bnd", 2)
	if err := os.WriteFile(script, []byte(missing), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runFloe("sql", "-f", script, "--set", "input="+input, "--set", "output="+output+"2", "--progress", "0", "--data-dir", filepath.Join(dir, "data2"))
	want := script + `: line 1, column 1: function price_bnd: module "sqlfns" has no function "price_bnd"; did you mean "price_band"?`
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("a missing export: %+v, want exit 2 saying %s", r, want)
	}
}
