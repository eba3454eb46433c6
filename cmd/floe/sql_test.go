package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sqlScript windows bids by auction; EXPLAIN before its INSERT makes
// floe sql print the graph instead of running it.
const sqlScript = `SET parallelism = 2;
CREATE TABLE bids (auction BIGINT, price BIGINT, ts BIGINT)
  WITH (connector = 'file', path = '${input}', watermark = 'ts - 1s');
CREATE TABLE totals (auction BIGINT, ws BIGINT, n BIGINT, total BIGINT)
  WITH (connector = 'file', path = '${output}');
%sINSERT INTO totals SELECT auction, window_start, COUNT(*), SUM(price)
FROM bids WHERE price > 0 GROUP BY auction, TUMBLE(ts, INTERVAL '10' SECOND);
`

func writeSQL(t *testing.T, dir, explain string) string {
	t.Helper()
	path := filepath.Join(dir, "totals.sql")
	if err := os.WriteFile(path, []byte(strings.Replace(sqlScript, "%s", explain, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSQLExplainPrintsTheGraph(t *testing.T) {
	script := writeSQL(t, t.TempDir(), "EXPLAIN ")
	var out, errOut bytes.Buffer
	if code := floe([]string{"sql", "-f", script, "--set", "input=in.csv", "--set", "output=out"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	want := `job totals

graph:
  source bids (file) x2
  sql totals-1-pre x2 <- bids
  keyBy totals-1-key <- totals-1-pre
  window totals-1-window x2 <- totals-1-key
  sql totals-1-select x2 <- totals-1-window
  sink totals (file) x2 <- totals-1-select

stages:
  stage 0 [bids -> totals-1-pre -> totals-1-key] x2 --hash--> 1
  stage 1 [totals-1-window -> totals-1-select -> totals] x2
`
	if out.String() != want {
		t.Errorf("floe sql printed\n%s\nwant\n%s", out.String(), want)
	}
}

func TestSQLRunsAWindowedAggregate(t *testing.T) {
	dir := t.TempDir()
	script := writeSQL(t, dir, "")
	input := filepath.Join(dir, "bids.csv")
	// Two windows of auction 1, one of auction 2; the row of price 0 is
	// filtered out, and the row at 25000 closes the window of 10000.
	rows := "1,5,1000\n2,7,2000\n1,3,9999\n1,0,5000\n1,4,10000\n2,1,25000\n"
	if err := os.WriteFile(input, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	output := filepath.Join(dir, "out")
	var out, errOut bytes.Buffer
	args := []string{"sql", "-f", script, "--set", "input=" + input, "--set", "output=" + output, "--progress", "0", "--data-dir", filepath.Join(dir, "data")}
	if code := floe(args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
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
	want := []string{"1,0,2,8", "1,10000,1,4", "2,0,1,7", "2,20000,1,1"}
	if !slices.Equal(got, want) {
		t.Errorf("the sink holds %q, want %q", got, want)
	}
}

func TestSQLErrorNamesLineAndColumn(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "bad.sql")
	src := "CREATE TABLE t (a BIGINT) WITH (connector = 'file', path = 'in');\n" +
		"CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT b FROM t;\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := floe([]string{"sql", "-f", script}, &out, &errOut); code != 2 {
		t.Fatalf("exit %d, want 2: %s", code, errOut.String())
	}
	want := "floe sql: " + script + `: line 3, column 22: unknown column "b" (t has: a)
  INSERT INTO o SELECT b FROM t;
                       ^
`
	if errOut.String() != want {
		t.Errorf("stderr\n%s\nwant\n%s", errOut.String(), want)
	}
}

func TestSQLPrintSpecIsASpec(t *testing.T) {
	dir := t.TempDir()
	script := writeSQL(t, dir, "")
	var out, errOut bytes.Buffer
	if code := floe([]string{"sql", "-f", script, "--print-spec"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	spec := filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(spec, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var plan bytes.Buffer
	if code := floe([]string{"plan", spec, "--set", "input=x", "--set", "output=y"}, &plan, &errOut); code != 0 {
		t.Fatalf("floe plan of the printed spec: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(plan.String(), "stage 1 [totals-1-window -> totals-1-select -> totals] x2") {
		t.Errorf("floe plan of the printed spec:\n%s", plan.String())
	}
}

// TestJobSubmitCompilesSQL submits a .sql script: the scheduler gets the
// compiled spec, as floe sql --print-spec prints it.
func TestJobSubmitCompilesSQL(t *testing.T) {
	c := startCluster(t)
	script := writeSQL(t, t.TempDir(), "")
	r := runFloe("job", "submit", script, "--set", "input=/in.csv", "--set", "output=/out", "--server", c.url)
	if r.code != 0 || r.stdout != "job-2\n" {
		t.Fatalf("got %+v, want exit 0 and job-2", r)
	}
	var printed, errOut bytes.Buffer
	if code := floe([]string{"sql", "-f", script, "--print-spec"}, &printed, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	subs := c.fake.Submissions()
	got := subs[len(subs)-1]
	if string(got.Spec) != printed.String() || got.Params["input"] != "/in.csv" {
		t.Errorf("submitted spec\n%s\nparams %v; want the printed spec\n%s", got.Spec, got.Params, printed.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.sql")
	if err := os.WriteFile(bad, []byte("SELEC 1;"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runFloe("job", "submit", bad, "--server", c.url); r.code == 0 || !strings.Contains(r.stderr, "line 1, column 1: syntax error") {
		t.Errorf("a bad script: %+v", r)
	}
}

// TestSQLConnectorErrorPointsAtTheOption runs a script whose file source
// has a bad rate: the message names the option's line and column.
func TestSQLConnectorErrorPointsAtTheOption(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "rate.sql")
	src := "CREATE TABLE t (a BIGINT) WITH (connector = 'file', path = 'in', rate = 'fast');\n" +
		"CREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT a FROM t;\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := floe([]string{"sql", "-f", script}, &out, &errOut); code != 2 {
		t.Fatalf("exit %d, want 2: %s", code, errOut.String())
	}
	want := "floe sql: " + script + `: line 1, column 66: table t: rate: must be a number >= 0, got "fast"
  CREATE TABLE t (a BIGINT) WITH (connector = 'file', path = 'in', rate = 'fast');
                                                                   ^
`
	if errOut.String() != want {
		t.Errorf("stderr\n%s\nwant\n%s", errOut.String(), want)
	}
}
