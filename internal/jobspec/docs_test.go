package jobspec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsErrorExample loads the broken spec of docs/jobs.md ("Errors")
// as the page says and checks that the error is the one the page shows
// (after the "floe run: " that the command puts before it), so that the
// example cannot drift from the parser.
func TestDocsErrorExample(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "jobs.md"))
	if err != nil {
		t.Fatal(err)
	}
	errors := string(page[strings.Index(string(page), "\n## Errors\n"):])
	spec := block(t, errors, "```yaml\n")
	want := block(t, errors, "prints:\n\n```\n")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "jobs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "jobs", "broken.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	_, err = Load(filepath.Join("jobs", "broken.yaml"), map[string]string{"output": "out", "inptu": "words.txt"})
	if err == nil {
		t.Fatal("the broken spec loaded")
	}
	if got := "floe run: " + err.Error() + "\n"; got != want {
		t.Errorf("docs/jobs.md shows\n%s\nthe parser says\n%s", want, got)
	}
}

// block returns the text of the fenced block that opens with start.
func block(t *testing.T, s, start string) string {
	t.Helper()
	i := strings.Index(s, start)
	if i < 0 {
		t.Fatalf("docs/jobs.md has no %q", start)
	}
	s = s[i+len(start):]
	return s[:strings.Index(s, "```")]
}
