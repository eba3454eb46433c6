package minicluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
)

// TestMisspeltFunctionRefusedAtSubmit checks that a spec naming a function
// its module does not register is refused when it is submitted, with the
// line of the spec and the closest name, before any task runs; and that a
// window function where a record function belongs is refused too.
func TestMisspeltFunctionRefusedAtSubmit(t *testing.T) {
	dir := t.TempDir()
	good := wordcount(t, dir, filepath.Join(dir, "in"), filepath.Join(dir, "out"), "", 1)
	line := 1 + bytes.Count(good.Spec[:bytes.Index(good.Spec, []byte("function: split"))], []byte("\n"))
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tests := []struct {
		name, from, to string
		want           []string
	}{
		{"misspelt", "function: split", "function: splti",
			[]string{`function: module "wordcount" has no function "splti"; did you mean "split"?`}},
		{"absent", "function: split", "function: tokenize",
			[]string{`function: module "wordcount" has no function "tokenize" (it has: `}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub := good
			sub.Spec = bytes.Replace(good.Spec, []byte(tt.from), []byte(tt.to), 1)
			id, err := c.Scheduler.Submit(context.Background(), sub)
			if !errors.Is(err, api.ErrBadRequest) {
				t.Fatalf("Submit = %q, %v; want a bad request", id, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, fmt.Sprintf("line %d: operators[", line)) {
				t.Errorf("error %q does not name line %d", msg, line)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
			if jobs, _ := c.Scheduler.Jobs(context.Background()); len(jobs) != 0 {
				t.Errorf("jobs after a refused submit: %+v", jobs)
			}
		})
	}
}
