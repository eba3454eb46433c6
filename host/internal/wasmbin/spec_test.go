package wasmbin

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// A spec script, as wabt's wast2json writes it.
type script struct {
	Commands []command `json:"commands"`
}

type command struct {
	Type       string `json:"type"`
	Line       int    `json:"line"`
	Filename   string `json:"filename"`
	Name       string `json:"name"`
	As         string `json:"as"`
	ModuleType string `json:"module_type"`
	Action     *struct {
		Type   string  `json:"type"`
		Module string  `json:"module"`
		Field  string  `json:"field"`
		Args   []value `json:"args"`
	} `json:"action"`
	Expected []value `json:"expected"`
}

type value struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// specFuel is small so that the tests' short loops and call chains reach
// the host.
const specFuel = 3

// TestSpecScriptsPassInstrumented runs the specification's scripts in
// testdata/spec against instrumented modules.
func TestSpecScriptsPassInstrumented(t *testing.T) {
	files, err := filepath.Glob("testdata/spec/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no spec scripts: %v", err)
	}
	var total specStats
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			s := runScript(t, f)
			total.add(s)
		})
	}
	t.Logf("%+v", total)
	// The harness cannot provide the spectest module's globals, table and
	// memory; only a few modules import them.
	if total.unlinked*10 > total.modules {
		t.Errorf("%d of %d modules could not be linked", total.unlinked, total.modules)
	}
	if total.asserts < 1000 || total.yields == 0 {
		t.Errorf("only %d assertions checked and %d yields: is the harness running?", total.asserts, total.yields)
	}
}

type specStats struct {
	modules, unlinked, asserts, refused int
	yields                              int64
}

func (s *specStats) add(o specStats) {
	s.modules += o.modules
	s.unlinked += o.unlinked
	s.asserts += o.asserts
	s.refused += o.refused
	s.yields += o.yields
}

func runScript(t *testing.T, path string) (stats specStats) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sc script
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2|experimental.CoreFeaturesTailCall))
	defer rt.Close(ctx)
	linkSpectest(t, rt)
	yield := rt.NewHostModuleBuilder(Module).NewFunctionBuilder().
		WithFunc(func() uint32 { stats.yields++; return specFuel }).Export(Func)
	if _, err := yield.Instantiate(ctx); err != nil {
		t.Fatal(err)
	}

	// A module registered under a name is instantiated under it.
	registered := map[string]string{}
	lastModule := ""
	for _, c := range sc.Commands {
		switch c.Type {
		case "module":
			lastModule = c.Filename
		case "register":
			if c.Name != "" {
				for _, d := range sc.Commands {
					if d.Type == "module" && d.Name == c.Name {
						registered[d.Filename] = c.As
					}
				}
			} else {
				registered[lastModule] = c.As
			}
		}
	}

	named := map[string]api.Module{}
	var cur api.Module
	skipping := false
	for _, c := range sc.Commands {
		where := func() string { return filepath.Base(path) + ":" + strconv.Itoa(c.Line) }
		switch c.Type {
		case "module":
			stats.modules++
			cur, skipping = nil, false
			wasm := readSpecModule(t, c.Filename)
			if err := Check(wasm); err != nil {
				t.Errorf("%s: Check: %v", where(), err)
			}
			out, err := Instrument(wasm, specFuel)
			if err != nil {
				t.Errorf("%s: %v", where(), err)
				skipping = true
				continue
			}
			m, err := rt.InstantiateWithConfig(ctx, out, wazero.NewModuleConfig().WithName(registered[c.Filename]))
			if err != nil {
				if strings.Contains(err.Error(), `module[spectest] not instantiated`) ||
					strings.Contains(err.Error(), "is not exported in module spectest") {
					stats.unlinked++
				} else {
					t.Errorf("%s: instrumented module: %v", where(), err)
				}
				skipping = true
				continue
			}
			cur = m
			if c.Name != "" {
				named[c.Name] = m
			}
		case "assert_invalid", "assert_malformed", "assert_uninstantiable", "assert_unlinkable":
			if c.ModuleType == "text" {
				continue
			}
			// Compiling is enough to refuse an invalid module; the others
			// fail to instantiate.
			try := func(wasm []byte) error {
				cm, err := rt.CompileModule(ctx, wasm)
				if err == nil && (c.Type == "assert_uninstantiable" || c.Type == "assert_unlinkable") {
					var m api.Module
					if m, err = rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig()); err == nil {
						m.Close(ctx)
					}
				}
				if cm != nil {
					cm.Close(ctx)
				}
				return err
			}
			wasm := readSpecModule(t, c.Filename)
			if try(wasm) == nil {
				continue // wazero is more lenient than the spec here
			}
			stats.refused++
			if out, err := Instrument(wasm, specFuel); err == nil && try(out) == nil {
				t.Errorf("%s: instrumented, a module the spec refuses (%s) was accepted", where(), c.Type)
			}
		case "action", "assert_return", "assert_trap", "assert_exhaustion":
			if skipping || c.Action.Type != "invoke" {
				continue
			}
			m := cur
			if c.Action.Module != "" {
				m = named[c.Action.Module]
			}
			if m == nil {
				t.Fatalf("%s: no module %q", where(), c.Action.Module)
			}
			stats.asserts++
			checkInvoke(t, where(), m, c)
		}
	}
	return stats
}

func readSpecModule(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata/spec", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// linkSpectest provides the spectest module: its print functions from Go,
// re-exported with its globals, table and memory by a module in Wasm.
func linkSpectest(t *testing.T, rt wazero.Runtime) {
	b := rt.NewHostModuleBuilder("spectest_print")
	v := api.ValueTypeI32
	for name, params := range map[string][]api.ValueType{
		"print": nil, "print_i32": {v}, "print_i64": {api.ValueTypeI64},
		"print_f32": {api.ValueTypeF32}, "print_f64": {api.ValueTypeF64},
		"print_i32_f32": {v, api.ValueTypeF32}, "print_f64_f64": {api.ValueTypeF64, api.ValueTypeF64},
	} {
		b.NewFunctionBuilder().WithGoFunction(api.GoFunc(func(context.Context, []uint64) {}), params, nil).Export(name)
	}
	if _, err := b.Instantiate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.InstantiateWithConfig(context.Background(), spectestModule(), wazero.NewModuleConfig().WithName("spectest")); err != nil {
		t.Fatal(err)
	}
}

// spectestModule assembles the module that re-exports the print functions
// and defines the globals (666 and 666.6), the table (10 to 20 funcref) and
// the memory (1 to 2 pages) that the spec tests import.
func spectestModule() []byte {
	prints := []struct {
		name   string
		params []byte
	}{
		{"print", nil}, {"print_i32", []byte{0x7f}}, {"print_i64", []byte{0x7e}},
		{"print_f32", []byte{0x7d}}, {"print_f64", []byte{0x7c}},
		{"print_i32_f32", []byte{0x7f, 0x7d}}, {"print_f64_f64", []byte{0x7c, 0x7c}},
	}
	var types, imports, exports []byte
	for i, p := range prints {
		types = append(append(appendU32(append(types, 0x60), uint32(len(p.params))), p.params...), 0)
		imports = append(appendName(appendName(imports, "spectest_print"), p.name), 0, byte(i))
		exports = append(appendName(exports, p.name), 0, byte(i))
	}
	f32 := math.Float32bits(666.6)
	f64 := math.Float64bits(666.6)
	globals := []byte{4,
		0x7f, 0, 0x41, 0x9a, 0x05, 0x0b,
		0x7e, 0, 0x42, 0x9a, 0x05, 0x0b,
		0x7d, 0, 0x43, byte(f32), byte(f32 >> 8), byte(f32 >> 16), byte(f32 >> 24), 0x0b,
		0x7c, 0, 0x44}
	for i := 0; i < 8; i++ {
		globals = append(globals, byte(f64>>(8*i)))
	}
	globals = append(globals, 0x0b)
	for i, name := range []string{"global_i32", "global_i64", "global_f32", "global_f64"} {
		exports = append(appendName(exports, name), 3, byte(i))
	}
	exports = append(appendName(exports, "table"), 1, 0)
	exports = append(appendName(exports, "memory"), 2, 0)
	sec := func(b []byte, id byte, n int, body []byte) []byte {
		body = append(appendU32(nil, uint32(n)), body...)
		return append(appendU32(append(b, id), uint32(len(body))), body...)
	}
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = sec(m, secType, len(prints), types)
	m = sec(m, secImport, len(prints), imports)
	m = sec(m, secTable, 1, []byte{0x70, 1, 10, 20})
	m = sec(m, 5, 1, []byte{1, 1, 2})
	m = append(append(m, secGlobal, byte(len(globals))), globals...)
	return sec(m, secExport, len(prints)+6, exports)
}

func checkInvoke(t *testing.T, where string, m api.Module, c command) {
	f := m.ExportedFunction(c.Action.Field)
	if f == nil {
		t.Errorf("%s: no export %q", where, c.Action.Field)
		return
	}
	args := make([]uint64, len(c.Action.Args))
	for i, a := range c.Action.Args {
		args[i] = specValue(t, a)
	}
	res, err := f.Call(context.Background(), args...)
	switch c.Type {
	case "assert_trap", "assert_exhaustion":
		if err == nil {
			t.Errorf("%s: %s returned %v, want a trap", where, c.Action.Field, res)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: %s: %v", where, c.Action.Field, err)
		return
	}
	if len(res) != len(c.Expected) {
		t.Errorf("%s: %s returned %d results, want %d", where, c.Action.Field, len(res), len(c.Expected))
		return
	}
	for i, want := range c.Expected {
		if !sameValue(t, want, res[i]) {
			t.Errorf("%s: %s result %d = %#x, want %s %s", where, c.Action.Field, i, res[i], want.Type, want.Value)
		}
	}
}

// specValue encodes a script value as wazero passes it: integers and
// float bits as they are, a null reference as 0 and reference n as n+1.
func specValue(t *testing.T, v value) uint64 {
	switch v.Type {
	case "externref", "funcref":
		if v.Value == "null" {
			return 0
		}
		n, err := strconv.ParseUint(v.Value, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n + 1
	}
	n, err := strconv.ParseUint(v.Value, 10, 64)
	if err != nil {
		t.Fatalf("value %+v: %v", v, err)
	}
	return n
}

func sameValue(t *testing.T, want value, got uint64) bool {
	switch {
	case strings.HasPrefix(want.Value, "nan:") && want.Type == "f32":
		return math.IsNaN(float64(math.Float32frombits(uint32(got))))
	case strings.HasPrefix(want.Value, "nan:"):
		return math.IsNaN(math.Float64frombits(got))
	case want.Type == "funcref" && want.Value != "null":
		return got != 0
	case want.Type == "i32" || want.Type == "f32":
		return uint32(got) == uint32(specValue(t, want))
	}
	return got == specValue(t, want)
}
