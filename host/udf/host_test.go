package udf

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/wasmbuild"
)

// testops is the compiled udfs/testops module, built once for the package.
var testops []byte

// compiled is the compilation cache the package's engines share unless a
// test names its own, or watches first compiles: a module compiled by one test is loaded, not
// compiled again, by the next (under the race detector, compiling testops
// is most of this package's time).
var compiled string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "floe-host-test")
	if err != nil {
		panic(err)
	}
	compiled = filepath.Join(dir, "compiled")
	root, err := wasmbuild.RepoRoot()
	if err == nil {
		var path string
		if path, err = wasmbuild.Go(filepath.Join(root, "udfs", "testops"), dir); err == nil {
			testops, err = os.ReadFile(path)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

func newEngine(t *testing.T, cfg Config) *Engine {
	t.Helper()
	if cfg.CacheDir == "" && cfg.OnFirstCompile == nil {
		cfg.CacheDir = compiled
	}
	e, err := NewEngine(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return e
}

func instance(t *testing.T, e *Engine, cfg InstanceConfig) *Instance {
	t.Helper()
	m, err := e.Compile(context.Background(), "testops", testops)
	if err != nil {
		t.Fatal(err)
	}
	in, err := m.Instantiate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(context.Background()) })
	return in
}

func batchOf(values ...string) *record.Batch {
	var b record.Batch
	for _, v := range values {
		b.Append(nil, []byte(v), 7)
	}
	return &b
}

func values(b *record.Batch) []string {
	var out []string
	for _, r := range b.Records {
		out = append(out, string(r.Value))
	}
	return out
}

func TestStatelessFunctions(t *testing.T) {
	e := newEngine(t, Config{})
	for _, tc := range []struct {
		function string
		in, want []string
	}{
		{"upper", []string{"abc", "", "Hello, World"}, []string{"ABC", "", "HELLO, WORLD"}},
		{"nonempty", []string{"a", "", "b", ""}, []string{"a", "b"}},
		{"fields", []string{"a,b", "c", "", "d,,e"}, []string{"a", "b", "c", "", "d", "", "e"}},
		{"first-field", []string{"k1,v", "k2", ",x"}, []string{"k1", "k2", ""}},
	} {
		t.Run(tc.function, func(t *testing.T) {
			in := instance(t, e, InstanceConfig{Function: tc.function, Operator: "op"})
			var out record.Batch
			// Twice, so a reused input buffer and output batch are covered.
			for round := 0; round < 2; round++ {
				out.Reset()
				if err := in.Process(context.Background(), batchOf(tc.in...), &out); err != nil {
					t.Fatal(err)
				}
				if got := values(&out); fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Fatalf("round %d: got %q, want %q", round, got, tc.want)
				}
				for _, r := range out.Records {
					if r.Timestamp != 7 {
						t.Fatalf("output timestamp %d, want the input's 7", r.Timestamp)
					}
				}
			}
		})
	}
}

func TestBatchLargerThanTheGuestBuffer(t *testing.T) {
	e := newEngine(t, Config{})
	in := instance(t, e, InstanceConfig{Function: "upper", Operator: "op"})
	for _, n := range []int{1, 10, 5000, 20} {
		var vals []string
		for i := 0; i < n; i++ {
			vals = append(vals, strings.Repeat("x", i%300)+fmt.Sprint(i))
		}
		var out record.Batch
		if err := in.Process(context.Background(), batchOf(vals...), &out); err != nil {
			t.Fatal(err)
		}
		if out.Len() != n {
			t.Fatalf("batch of %d gave %d records", n, out.Len())
		}
		for i, r := range out.Records {
			if string(r.Value) != strings.ToUpper(vals[i]) {
				t.Fatalf("record %d: %q", i, r.Value)
			}
		}
	}
}

func TestSideOutput(t *testing.T) {
	e := newEngine(t, Config{})
	in := instance(t, e, InstanceConfig{Function: "fields", Operator: "op"})
	var out record.Batch
	if err := in.Process(context.Background(), batchOf("a,#x,b", "#y"), &out); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(values(&out)); got != "[a b]" {
		t.Fatalf("main output %s", got)
	}
	if got := in.SideOutputs(); fmt.Sprint(got) != "[comments]" {
		t.Fatalf("side outputs %v", got)
	}
	if got := fmt.Sprint(values(in.SideOutput(1))); got != "[#x #y]" {
		t.Fatalf("side output %s", got)
	}
}

func TestTimerCallsTrapUntilSupported(t *testing.T) {
	if _, ok := abiFunctions["timer_register"]; !ok {
		t.Fatal("timer_register must be linked so modules importing it load")
	}
}
