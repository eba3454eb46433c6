package udf

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/record"
)

// moduleImporting builds the smallest Wasm module that imports one function
// of type () -> () from mod.
func moduleImporting(mod, name string) []byte {
	b := []byte("\x00asm\x01\x00\x00\x00")
	b = append(b, 1, 4, 1, 0x60, 0, 0) // type section: one () -> ()
	imp := []byte{1, byte(len(mod))}
	imp = append(imp, mod...)
	imp = append(imp, byte(len(name)))
	imp = append(imp, name...)
	imp = append(imp, 0, 0) // a function of type 0
	b = append(b, 2, byte(len(imp)))
	return append(b, imp...)
}

func TestBadModulesAreRefusedWithAClearError(t *testing.T) {
	e := newEngine(t, Config{})
	for _, tc := range []struct {
		name string
		wasm []byte
		want string
	}{
		{"empty", nil, "not a WebAssembly module"},
		{"text", []byte("hello, I am not wasm"), "not a WebAssembly module"},
		{"truncated", testops[:len(testops)/2], "invalid WebAssembly"},
		{"no exports", []byte("\x00asm\x01\x00\x00\x00"), "lacks the exports [floe_alloc floe_open floe_process floe_close]"},
		{"abi v2", moduleImporting("floe_v2", "emit"), "built for Floe ABI v2; this host speaks v1"},
		{"unknown host function", moduleImporting("floe_v1", "teleport"), "imports floe_v1.teleport"},
		{"foreign import", moduleImporting("env", "abort"), "imports env.abort"},
		// 27 bytes that would have wazero allocate gigabytes.
		{"four billion results", []byte("\x00asm\x01\x00\x00\x00\x01\x0a\x01\x60\x01\x7f\x80\xd0\xac\xf3\x0e\x7f"),
			"declares 4000000000 results in the type section"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Compile(context.Background(), tc.name, tc.wasm)
			if err == nil {
				t.Fatal("compiled a bad module")
			}
			if !errors.Is(err, ErrBadModule) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
				t.Fatalf("error %q: want ErrBadModule naming the module and saying %q", err, tc.want)
			}
		})
	}
}

func TestMisbehavingGuestsFailWithTheRecordNamed(t *testing.T) {
	e := newEngine(t, Config{MaxMemory: 64 << 20})
	for _, tc := range []struct {
		record  string
		want    []string
		timeout bool
	}{
		{record: "panic", want: []string{"panic: asked to panic", `record 1: "panic"`}},
		{record: "error", want: []string{"poison record", `record 1: "error"`}},
		{record: "loop", want: []string{"did not return in time"}, timeout: true},
		{record: "bomb", want: []string{"memory cap of 64 MiB", "fatal error: out of memory"}},
	} {
		t.Run(tc.record, func(t *testing.T) {
			// Only the loop needs the deadline; the others get one a loaded
			// machine (or -race) cannot reach, so they fail for their own
			// reason.
			deadline := time.Minute
			if tc.timeout {
				deadline = 2 * time.Second
			}
			in := instance(t, e, InstanceConfig{Function: "misbehave", Operator: "op", CallTimeout: deadline})
			var out record.Batch
			err := in.Process(context.Background(), batchOf("fine", tc.record, "never"), &out)
			var ue *UDFError
			if !errors.As(err, &ue) {
				t.Fatalf("error %v (%T), want a *UDFError", err, err)
			}
			msg := err.Error()
			for _, w := range append(tc.want, `module "testops" function "misbehave"`) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if tc.timeout != errors.Is(err, ErrTimeout) {
				t.Errorf("errors.Is(err, ErrTimeout) = %v", !tc.timeout)
			}
			// A failed instance stays failed rather than running on in an
			// unknown state.
			if err2 := in.Process(context.Background(), batchOf("fine"), &out); err2 == nil {
				t.Error("instance processed after failing")
			}
		})
	}
}

func TestCancelledCallIsNotBlamedOnTheGuest(t *testing.T) {
	e := newEngine(t, Config{})
	in := instance(t, e, InstanceConfig{Function: "misbehave", Operator: "op"})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var out record.Batch
	err := in.Process(ctx, batchOf("loop"), &out)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the caller's context error", err)
	}
	var ue *UDFError
	if errors.As(err, &ue) {
		t.Fatalf("a cancellation became a UDF error: %v", err)
	}
}

func TestUnknownFunctionFailsAtOpen(t *testing.T) {
	e := newEngine(t, Config{})
	m, err := e.Compile(context.Background(), "testops", testops)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Instantiate(context.Background(), InstanceConfig{Function: "nope", Operator: "op"})
	if err == nil || !strings.Contains(err.Error(), `no function "nope" in this module`) {
		t.Fatalf("got %v", err)
	}
}

// TestUDFErrorNamesTheRecordsKey checks that a failure tied to a record
// carries its key and the operator, for the job's exceptions.
func TestUDFErrorNamesTheRecordsKey(t *testing.T) {
	e := newEngine(t, Config{})
	in := instance(t, e, InstanceConfig{Function: "misbehave", Operator: "op"})
	var b, out record.Batch
	b.Append([]byte("k0"), []byte("fine"), record.NoTimestamp)
	b.Append([]byte("user-7"), []byte("error"), record.NoTimestamp)
	err := in.Process(context.Background(), &b, &out)
	var ue *UDFError
	if !errors.As(err, &ue) {
		t.Fatalf("error %v (%T), want a *UDFError", err, err)
	}
	if ue.Record != 1 || string(ue.Key) != "user-7" || ue.KeySize != 6 || string(ue.Value) != "error" || ue.Operator != "op" {
		t.Errorf("failure on record %d key %q (%d bytes) value %q in operator %q; want 1, \"user-7\" (6), \"error\", \"op\"",
			ue.Record, ue.Key, ue.KeySize, ue.Value, ue.Operator)
	}
}
