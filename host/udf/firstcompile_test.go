package udf

import (
	"context"
	"slices"
	"testing"
)

// TestOnFirstCompile checks that an engine says when it compiles a
// module's code for the first time into its cache directory, and only then:
// not again in the same engine, nor in a later engine on the same
// directory, but again on a new directory or different code.
func TestOnFirstCompile(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	tests := []struct {
		name        string
		dir         string
		module      string
		interrupt   bool // instrumented code differs from uninstrumented
		wantNotices []string
	}{
		{"first compile", dir, "ops", true, []string{"ops"}},
		{"same code, same dir", dir, "ops", true, nil},
		{"other code, same dir", dir, "raw", false, []string{"raw"}},
		{"same code, other dir", other, "ops", true, []string{"ops"}},
		{"no cache dir", "", "ops", true, nil},
	}
	for _, tt := range tests {
		var got []string
		e := newEngine(t, Config{CacheDir: tt.dir, Uninterruptible: !tt.interrupt, OnFirstCompile: func(m string) { got = append(got, m) }})
		for range 2 {
			m, err := e.Compile(context.Background(), tt.module, testops)
			if err != nil {
				t.Fatal(err)
			}
			m.Close(context.Background())
		}
		if !slices.Equal(got, tt.wantNotices) {
			t.Errorf("%s: notices %q, want %q", tt.name, got, tt.wantNotices)
		}
	}
}
