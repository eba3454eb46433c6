package sqloracle

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestJSONTables reads a JSON table with event time and writes a JSON
// table, through a filter and a window; the expected rows are worked out
// by hand.
func TestJSONTables(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "clicks.json")
	lines := `{"user": "ann", "page": "/a", "ms": 12, "at": 1000}
{"user": "bob", "page": "/b", "ms": null, "at": 1500}
{"user": "ann", "page": "/c", "ms": 30, "at": 4000}
{"user": "ann", "page": "/d", "ms": 8, "at": 6500, "extra": true}
{"user": "eve", "page": "/a", "at": 7000}
{"user": "bob", "page": "/x", "ms": 5, "at": 12000}
`
	if err := os.WriteFile(in, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	src := `SET parallelism = 2;
CREATE TABLE clicks ("user" VARCHAR, page VARCHAR, ms BIGINT, at BIGINT)
  WITH (connector = 'file', format = 'json', path = '` + in + `', watermark = 'at');
CREATE TABLE visits ("user" VARCHAR, window_start BIGINT, pages BIGINT, total_ms BIGINT, slowest BIGINT)
  WITH (connector = 'file', format = 'json', path = '` + out + `');
INSERT INTO visits SELECT "user", window_start, COUNT(*), SUM(ms), MAX(ms)
FROM clicks WHERE page <> '/x' GROUP BY "user", TUMBLE(at, INTERVAL '5' SECOND);
`
	c := startCluster(t, dir)
	got := runLines(t, c, src, out)
	// ann: [0, 5000) /a 12 and /c 30; [5000, 10000) /d 8. bob: [0, 5000)
	// /b with no ms (/x is filtered out). eve: [5000, 10000) /a, no ms.
	want := []string{
		`{"user":"ann","window_start":0,"pages":2,"total_ms":42,"slowest":30}`,
		`{"user":"ann","window_start":5000,"pages":1,"total_ms":8,"slowest":8}`,
		`{"user":"bob","window_start":0,"pages":1,"total_ms":null,"slowest":null}`,
		`{"user":"eve","window_start":5000,"pages":1,"total_ms":null,"slowest":null}`,
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
