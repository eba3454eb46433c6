package wasmbin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// fn is a function of a test module, exported under its name.
type fn struct {
	name            string
	params, results []byte
	locals          []byte // one local per value type
	code            []byte // without the final end
}

// assemble builds a module of fns, function i of type i.
func assemble(fns ...fn) []byte {
	var types, funcs, exports, code []byte
	for i, f := range fns {
		types = append(appendU32(append(types, 0x60), uint32(len(f.params))), f.params...)
		types = append(appendU32(types, uint32(len(f.results))), f.results...)
		funcs = appendU32(funcs, uint32(i))
		exports = appendU32(append(appendName(exports, f.name), 0), uint32(i))
		body := appendU32(nil, uint32(len(f.locals)))
		for _, l := range f.locals {
			body = append(body, 1, l)
		}
		body = append(append(body, f.code...), opEnd)
		code = append(appendU32(code, uint32(len(body))), body...)
	}
	sec := func(b []byte, id byte, body []byte) []byte {
		body = append(appendU32(nil, uint32(len(fns))), body...)
		return append(appendU32(append(b, id), uint32(len(body))), body...)
	}
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = sec(m, secType, types)
	m = sec(m, secFunction, funcs)
	m = sec(m, secExport, exports)
	return sec(m, secCode, code)
}

const i32 = 0x7f

var (
	// count(n) loops n times (n > 0) and returns n.
	count = fn{name: "count", params: []byte{i32}, results: []byte{i32}, locals: []byte{i32}, code: []byte{
		opLoop, 0x40,
		0x20, 1, 0x41, 1, 0x6a, 0x22, 1, // i = i + 1
		0x20, 0, 0x49, 0x0d, 0, // br_if 0 (i < n)
		opEnd,
		0x20, 1,
	}}
	// doubling(n) calls itself twice down to n = 0: 2^n calls, no loops.
	doubling = fn{name: "doubling", params: []byte{i32}, results: []byte{i32}, code: []byte{
		0x20, 0, 0x45, 0x04, i32, // if (n == 0) (result i32)
		0x41, 1,
		0x05, // else
		0x20, 0, 0x41, 1, 0x6b, opCall, 0,
		0x20, 0, 0x41, 1, 0x6b, opCall, 0, 0x6a,
		opEnd,
	}}
	// spin loops forever.
	spin = fn{name: "spin", code: []byte{opLoop, 0x40, 0x0c, 0, opEnd}}
	// loopedDoubling is doubling inside a loop that runs once, behind the
	// straight-line prefix that Go puts before its functions' loop: the
	// loop's check is its only one.
	loopedDoubling = fn{name: "loopedDoubling", params: []byte{i32}, results: []byte{i32}, code: append(
		[]byte{0x02, i32, 0x20, 0, 0x21, 0, opLoop, i32}, append(doubling.code[:len(doubling.code):len(doubling.code)], opEnd, opEnd)...)}
	// goCount(n) is count as Go compiles it: a dispatch loop (see
	// dispatch.go) over three basic blocks, entered at the first, which
	// jumps forward to the loop test in the third, which jumps back to the
	// second, the body, n times. The jump forward skips the loop's header,
	// and so its check.
	goCount = fn{name: "goCount", params: []byte{i32}, results: []byte{i32}, locals: []byte{i32, i32}, code: []byte{
		opLoop, 0x40, 0x02, 0x40, 0x02, 0x40, 0x02, 0x40,
		0x20, 2, 0x0e, 3, 0, 1, 2, 0, // br_table on $pc
		opEnd,
		0x41, 0, 0x21, 1, // i = 0
		0x41, 2, 0x21, 2, 0x0c, 2, // jump forward to the test
		opEnd,
		0x20, 1, 0x41, 1, 0x6a, 0x21, 1, // i = i + 1
		opEnd,
		0x20, 1, 0x20, 0, 0x49, 0x04, 0x40, // if i < n
		0x41, 1, 0x21, 2, 0x0c, 1, // jump back to the body
		opEnd,
		opEnd,
		0x20, 1,
	}}
	// goSpin jumps from a dispatch loop's only basic block to itself.
	goSpin = fn{name: "goSpin", locals: []byte{i32}, code: []byte{
		opLoop, 0x40, 0x02, 0x40, 0x20, 0, 0x0e, 0, 0, opEnd,
		0x41, 0, 0x21, 0, 0x0c, 0,
		opEnd,
	}}
	// goComputed jumps from a dispatch loop's second basic block to a
	// target it computes, which is the first.
	goComputed = fn{name: "goComputed", params: []byte{i32}, locals: []byte{i32}, code: []byte{
		opLoop, 0x40, 0x02, 0x40, 0x02, 0x40, 0x20, 1, 0x0e, 2, 0, 1, 0, opEnd,
		opEnd,
		0x20, 0, 0x21, 1, 0x0c, 0, // $pc = n; jump
		opEnd,
	}}
	// goDoubling is doubling in a dispatch loop, whose header check is the
	// one its calls pass.
	goDoubling = fn{name: "goDoubling", params: []byte{i32}, results: []byte{i32}, locals: []byte{i32}, code: append(append(
		[]byte{opLoop, 0x40, 0x02, 0x40, 0x20, 1, 0x0e, 0, 0, opEnd},
		doubling.code[:len(doubling.code):len(doubling.code)]...), 0x0f, opEnd, 0x00)}
	// ping and pong tail-call each other forever.
	ping = fn{name: "ping", code: []byte{opReturnCall, 1}}
	pong = fn{name: "pong", code: []byte{opReturnCall, 0}}
)

// runtime starts wazero with yield as the instrumentation's import.
func runtime(t *testing.T, yield func() uint32) wazero.Runtime {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2|experimental.CoreFeaturesTailCall))
	t.Cleanup(func() { rt.Close(ctx) })
	if _, err := rt.NewHostModuleBuilder(Module).NewFunctionBuilder().WithFunc(yield).Export(Func).Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	return rt
}

func instantiate(t *testing.T, rt wazero.Runtime, wasm []byte, fuel uint32) api.Module {
	out, err := Instrument(wasm, fuel)
	if err != nil {
		t.Fatal(err)
	}
	m, err := rt.Instantiate(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestYieldsOnceInEveryFuelChecks(t *testing.T) {
	for _, tc := range []struct {
		fuel, iterations uint32
	}{
		{1, 1}, {1, 2}, {1, 1001}, {10, 1000}, {10, 999}, {10000, 9999}, {10000, 10000}, {10000, 1_000_000},
	} {
		var yields uint32
		rt := runtime(t, func() uint32 { yields++; return tc.fuel })
		m := instantiate(t, rt, assemble(count), tc.fuel)
		res, err := m.ExportedFunction("count").Call(context.Background(), uint64(tc.iterations))
		if err != nil || uint32(res[0]) != tc.iterations {
			t.Fatalf("count(%d) = %v, %v", tc.iterations, res, err)
		}
		// One check per iteration; a leaf function has no entry check.
		if want := tc.iterations / tc.fuel; yields != want {
			t.Errorf("fuel %d, %d iterations: %d yields, want %d", tc.fuel, tc.iterations, yields, want)
		}
	}
}

func TestDispatchLoopsSkipTheHeaderOnJumpsForward(t *testing.T) {
	for _, tc := range []struct {
		fuel, iterations uint32
	}{
		{1, 1}, {1, 2}, {1, 1001}, {10, 999}, {10000, 1_000_000},
	} {
		var yields uint32
		rt := runtime(t, func() uint32 { yields++; return tc.fuel })
		m := instantiate(t, rt, assemble(goCount), tc.fuel)
		res, err := m.ExportedFunction("goCount").Call(context.Background(), uint64(tc.iterations))
		if err != nil || uint32(res[0]) != tc.iterations {
			t.Fatalf("goCount(%d) = %v, %v", tc.iterations, res, err)
		}
		// One check on entry and one per jump back; none for the jump
		// forward.
		if want := (tc.iterations + 1) / tc.fuel; yields != want {
			t.Errorf("fuel %d, %d iterations: %d yields, want %d", tc.fuel, tc.iterations, yields, want)
		}
	}
}

func TestEntryCheckOnlyWhereNoLoopCheckRunsFirst(t *testing.T) {
	call := []byte{opCall, 0}
	for _, tc := range []struct {
		name string
		code []byte
		want bool
	}{
		{"leaf", []byte{0x41, 1, 0x1a}, false},
		{"leaf loop", []byte{opLoop, 0x40, 0x0c, 0, opEnd}, false},
		{"call", call, true},
		{"loop first", append([]byte{opLoop, 0x40}, append(call, opEnd)...), false},
		{"Go's prologue, then the loop", append([]byte{opGlobalGet, 0, 0x21, 1, 0x02, 0x40, opLoop, 0x40}, append(call, opEnd, opEnd)...), false},
		{"a branch before the loop", append([]byte{0x02, 0x40, 0x20, 0, 0x0d, 0, opLoop, 0x40}, append(call, opEnd, opEnd)...), true},
		{"a call before the loop", append(call, opLoop, 0x40, opEnd), true},
		{"loopedDoubling", loopedDoubling.code, false},
		{"a loop after a block ends (conservatively)", append([]byte{0x02, 0x40, opEnd, opLoop, 0x40}, append(call, opEnd)...), true},
	} {
		if got := needsEntryCheck(reader{b: tc.code, types: 1}); got != tc.want {
			t.Errorf("%s: needsEntryCheck = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// errStop is what the tests' host uses to stop a guest.
var errStop = errors.New("stopped by the host")

func TestRunawayGuestsAreStopped(t *testing.T) {
	for _, tc := range []struct {
		name string
		fns  []fn
		call string
		args []uint64
	}{
		{"endless loop", []fn{spin}, "spin", nil},
		{"exponential recursion", []fn{doubling}, "doubling", []uint64{62}},
		{"exponential recursion through a loop", []fn{loopedDoubling}, "loopedDoubling", []uint64{62}},
		{"endless tail calls", []fn{ping, pong}, "ping", nil},
		{"a jump back in a dispatch loop", []fn{goSpin}, "goSpin", nil},
		{"a computed jump in a dispatch loop", []fn{goComputed}, "goComputed", []uint64{0}},
		{"exponential recursion through a dispatch loop", []fn{goDoubling}, "goDoubling", []uint64{62}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			yields := 0
			rt := runtime(t, func() uint32 {
				if yields++; yields == 100 {
					panic(errStop)
				}
				return 1000
			})
			m := instantiate(t, rt, assemble(tc.fns...), 1000)
			_, err := m.ExportedFunction(tc.call).Call(context.Background(), tc.args...)
			if !errors.Is(err, errStop) {
				t.Fatalf("got %v, want the host's error", err)
			}
		})
	}
}

func TestGuestCannotReachTheFuel(t *testing.T) {
	// A module with no globals of its own that sets global 0, which is the
	// fuel once instrumented: invalid before, and it must stay refused.
	setFuel := fn{name: "f", code: []byte{0x41, 0x7f, 0x24, 0}}
	_, err := Instrument(assemble(setFuel), 10)
	if err == nil || !strings.Contains(err.Error(), "unknown global 0") {
		t.Fatalf("got %v, want unknown global 0", err)
	}
}

func TestBadInputIsAnErrorNotAPanic(t *testing.T) {
	good := assemble(count, doubling)
	for _, tc := range []struct {
		name string
		wasm []byte
		fuel uint32
		want string
	}{
		{"empty", nil, 10, "not a WebAssembly 1.0 binary"},
		{"text", []byte("(module)"), 10, "not a WebAssembly 1.0 binary"},
		{"component", []byte("\x00asm\x0d\x00\x01\x00"), 10, "not a WebAssembly 1.0 binary"},
		{"no fuel", good, 0, "fuel 0 out of range"},
		{"section past the end", append(bytes.Clone(good[:8]), 1, 100, 0), 10, "unexpected end"},
		{"unknown opcode", assemble(fn{name: "f", code: []byte{0xff}}), 10, "unknown opcode 0xff"},
		{"overlong number", assemble(fn{name: "f", code: []byte{opCall, 0x80, 0x80, 0x80, 0x80, 0x10}}), 10, "too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Instrument(tc.wasm, tc.fuel)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	for n := 8; n < len(good); n++ {
		Instrument(good[:n], 10) // must not panic
	}
}

// FuzzInstrument checks that Check and Instrument never panic, and that a
// module that passes Check and that wazero accepts is instrumented into one
// wazero accepts.
func FuzzInstrument(f *testing.F) {
	f.Add(assemble(count, doubling, ping, pong))
	seeds, _ := filepath.Glob("testdata/spec/*.wasm")
	for _, s := range seeds[:min(len(seeds), 40)] {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2|experimental.CoreFeaturesTailCall))
	defer rt.Close(ctx)
	f.Fuzz(func(t *testing.T, wasm []byte) {
		out, err := Instrument(wasm, 10)
		if Check(wasm) != nil {
			return // wazero could allocate without bound
		}
		cm, origErr := compile(ctx, rt, wasm)
		if origErr != nil {
			return
		}
		cm.Close(ctx)
		if err != nil {
			t.Fatalf("wazero accepts the module; Instrument: %v", err)
		}
		cm, err = compile(ctx, rt, out)
		if err != nil {
			t.Fatalf("instrumented module refused: %v", err)
		}
		cm.Close(ctx)
	})
}

// compile compiles wasm, turning a panic of wazero's into an error.
func compile(ctx context.Context, rt wazero.Runtime, wasm []byte) (cm wazero.CompiledModule, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("wazero panicked: %v", p)
		}
	}()
	return rt.CompileModule(ctx, wasm)
}
