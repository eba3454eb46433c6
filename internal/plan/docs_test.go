package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
)

// TestDocsGraphExample plans the example of docs/jobs.md ("Graphs") and
// checks that the stages are those the page shows, so that the example
// cannot drift from the planner.
func TestDocsGraphExample(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "jobs.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(page[strings.Index(string(page), "\n## Graphs\n"):])
	spec := block(t, section, "```yaml\n")
	want := block(t, section, "prints the graph and the stages:\n\n```\n")
	job, err := jobspec.Parse([]byte(spec), "/", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(job)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.String(); got != want {
		t.Errorf("docs/jobs.md shows\n%s\nthe planner says\n%s", want, got)
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
