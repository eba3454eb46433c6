package udf

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"time"

	"github.com/floe-stream/floe/host/internal/wasmbin"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// ABIModule is the import module of the ABI version this host speaks.
const ABIModule = "floe_v1"

// Defaults of Config.
const (
	DefaultMaxMemory   = 256 << 20
	DefaultCallTimeout = 30 * time.Second
	// DefaultMaxCallOutput is Config.MaxCallOutput's default: what one call
	// may emit, in bytes, all ports together.
	DefaultMaxCallOutput = 64 << 20
	// DefaultMaxRecordSize is Config.MaxRecordSize's default: the largest
	// record, key and value together, that enters or leaves a guest.
	DefaultMaxRecordSize = 16 << 20
	// DefaultLogLinesPerSecond and DefaultLogBytesPerSecond are the
	// defaults of Config.LogLinesPerSecond and Config.LogBytesPerSecond.
	DefaultLogLinesPerSecond = 1000
	DefaultLogBytesPerSecond = 1 << 20
)

// MaxMessage is the longest fail or log message a guest can hand the host,
// in bytes: a longer one is cut there and ends with "… (N bytes)", N its
// original length. (A task's error travels to the scheduler in one gRPC
// message of at most 4 MiB.)
const MaxMessage = 64 << 10

// tableShare is the part of the memory cap an instance's tables may take
// on top of it: each table entry costs wazero 8 bytes, so a module's tables
// together hold at most MaxMemory/tableShare/8 entries.
const tableShare = 16

// Config configures an Engine.
type Config struct {
	// CacheDir holds compiled modules across runs; empty means in memory.
	CacheDir string
	// MaxMemory caps each instance's linear memory, in bytes (rounded down
	// to 64 KiB pages). Zero means DefaultMaxMemory.
	MaxMemory int64
	// MaxCallOutput caps the bytes one call into a guest may emit, all
	// ports together, each record counted with the 64 bytes the host keeps
	// for it besides its value; the call is stopped when the guest goes
	// past it. Zero means DefaultMaxCallOutput.
	MaxCallOutput int64
	// MaxRecordSize caps one record, key and value together, handed to a
	// guest or emitted by it. Zero means DefaultMaxRecordSize.
	MaxRecordSize int64
	// LogLinesPerSecond and LogBytesPerSecond bound what each instance may
	// log (log calls and writes to stdout), with a burst of one second's
	// worth; what goes over is dropped and counted in a warning at most
	// once a second. Zero means the defaults; negative means no limit.
	LogLinesPerSecond, LogBytesPerSecond int64
	// Log receives what guests write to stdout; nil discards.
	Log io.Writer
	// OnFirstCompile, when set with a CacheDir, is called with a module's
	// name before its code is compiled for the first time into CacheDir
	// (later compiles of the same code, in this process or another, load
	// it), so that a command can say why it pauses.
	OnFirstCompile func(module string)
	// Uninterruptible compiles modules without the checks that let a
	// deadline stop a running call (host/internal/wasmbin adds them). A
	// call that never returns can then only be stopped by stopping the
	// process, and call deadlines are not enforced; and Go cannot preempt a
	// goroutine inside a long call, so a garbage collection waits for it.
	// For trusted operators, and for measuring what the checks cost.
	Uninterruptible bool
}

// Engine compiles and runs operator modules. It is safe for concurrent use;
// a process needs one.
type Engine struct {
	rt            wazero.Runtime
	log           io.Writer
	maxMemory     int64
	maxTable      uint32 // table entries per instance, all tables together
	limits        limits
	interruptible bool
	first         *firstCompiles
}

// limits are the caps every instance of an engine runs under.
type limits struct {
	callOutput, record int64
	logLines, logBytes float64 // per second; 0 means unlimited
}

// NewEngine starts the wazero runtime with the floe_v1 and WASI host
// modules.
func NewEngine(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.MaxMemory == 0 {
		cfg.MaxMemory = DefaultMaxMemory
	}
	pages := cfg.MaxMemory >> 16
	if pages < 1 || pages > 65536 {
		return nil, fmt.Errorf("host: memory cap %d bytes out of range (64 KiB to 4 GiB)", cfg.MaxMemory)
	}
	lim, err := cfg.limits()
	if err != nil {
		return nil, err
	}
	// NB: not WithCloseOnContextDone: Compile instruments modules instead,
	// at a fraction of its cost (RATIONALE.md).
	rc := wazero.NewRuntimeConfig().WithMemoryLimitPages(uint32(pages))
	if cfg.CacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("host: compilation cache %s: %w", cfg.CacheDir, err)
		}
		rc = rc.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("host: WASI: %w", err)
	}
	if err := linkABI(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("host: linking %s: %w", ABIModule, err)
	}
	if err := linkYield(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("host: linking %s: %w", wasmbin.Module, err)
	}
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	return &Engine{rt: rt, log: log, maxMemory: pages << 16, maxTable: uint32(pages << 16 / tableShare / 8),
		limits: lim, interruptible: !cfg.Uninterruptible, first: newFirstCompiles(cfg.CacheDir, cfg.OnFirstCompile)}, nil
}

// limits applies the defaults to the caps and checks them.
func (cfg Config) limits() (limits, error) {
	def := func(v, d int64) int64 {
		if v == 0 {
			return d
		}
		return v
	}
	l := limits{
		callOutput: def(cfg.MaxCallOutput, DefaultMaxCallOutput),
		record:     def(cfg.MaxRecordSize, DefaultMaxRecordSize),
	}
	if l.callOutput < 0 || l.record < 0 {
		return l, fmt.Errorf("host: output caps must be positive (per call %d, per record %d)", l.callOutput, l.record)
	}
	if lines := def(cfg.LogLinesPerSecond, DefaultLogLinesPerSecond); lines > 0 {
		l.logLines = float64(lines)
	}
	if bytes := def(cfg.LogBytesPerSecond, DefaultLogBytesPerSecond); bytes > 0 {
		l.logBytes = float64(bytes)
	}
	return l, nil
}

// Close releases the runtime and every instance still open.
func (e *Engine) Close(ctx context.Context) error { return e.rt.Close(ctx) }

// Module is a compiled, validated operator module. Instantiate it once per
// subtask.
type Module struct {
	e        *Engine
	name     string
	compiled wazero.CompiledModule
}

// Name returns the module's name.
func (m *Module) Name() string { return m.name }

// Compile validates wasm against the ABI and compiles it, instrumented so
// that calls can be stopped unless the engine is uninterruptible. name is
// how errors refer to the module (the job spec's module name).
func (e *Engine) Compile(ctx context.Context, name string, wasm []byte) (*Module, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, badModule(name, "not a WebAssembly module (no \\0asm header)")
	}
	if err := wasmbin.Check(wasm); err != nil {
		return nil, badModule(name, "invalid WebAssembly: %v", err)
	}
	// The tables' growth counts against the memory cap (a share of it on
	// top of it): wazero limits only linear memory.
	code, err := wasmbin.LimitTables(wasm, e.maxTable)
	if err != nil {
		if _, cerr := e.compile(ctx, wasm); cerr != nil {
			return nil, badModule(name, "invalid WebAssembly: %v", cerr)
		}
		return nil, badModule(name, "its tables exceed the cap of %d entries (1/%d of the memory cap at 8 bytes an entry): %v",
			e.maxTable, tableShare, err)
	}
	if e.interruptible {
		if code, err = wasmbin.Instrument(code, wasmbin.DefaultFuel); err != nil {
			// Let wazero name what is wrong, if it can.
			if _, err := e.compile(ctx, wasm); err != nil {
				return nil, badModule(name, "invalid WebAssembly: %v", err)
			}
			return nil, badModule(name, "cannot be instrumented to stop on time: %v", err)
		}
	}
	compiled := e.first.before(name, code)
	cm, err := e.compile(ctx, code)
	if err != nil {
		return nil, badModule(name, "invalid WebAssembly: %v", err)
	}
	compiled()
	if err := checkImports(name, cm); err != nil {
		cm.Close(ctx)
		return nil, err
	}
	if err := checkExports(name, cm); err != nil {
		cm.Close(ctx)
		return nil, err
	}
	return &Module{e: e, name: name, compiled: cm}, nil
}

// compile compiles wasm with wazero, which panics on some invalid input.
func (e *Engine) compile(ctx context.Context, wasm []byte) (cm wazero.CompiledModule, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("refused (the runtime panicked: %v)", p)
		}
	}()
	return e.rt.CompileModule(ctx, wasm)
}

// Close releases the compiled code.
func (m *Module) Close(ctx context.Context) error { return m.compiled.Close(ctx) }

var abiVersion = regexp.MustCompile(`^floe_v([0-9]+)$`)

// checkImports refuses imports this host cannot satisfy, above all another
// ABI version.
func checkImports(name string, cm wazero.CompiledModule) error {
	for _, f := range cm.ImportedFunctions() {
		mod, fn, _ := f.Import()
		switch {
		case mod == ABIModule:
			if _, ok := abiFunctions[fn]; !ok {
				return badModule(name, "imports %s.%s, which this host does not provide (built for a newer Floe?)", mod, fn)
			}
		case mod == wasi_snapshot_preview1.ModuleName, mod == wasmbin.Module && fn == wasmbin.Func:
		case abiVersion.MatchString(mod):
			v, _ := strconv.Atoi(abiVersion.FindStringSubmatch(mod)[1])
			return badModule(name, "was built for Floe ABI v%d; this host speaks v1", v)
		default:
			return badModule(name, "imports %s.%s; Floe provides only %s and %s", mod, fn, ABIModule, wasi_snapshot_preview1.ModuleName)
		}
	}
	return nil
}

// export is a required guest export and its signature.
type export struct {
	name            string
	params, results []api.ValueType
}

var i32 = api.ValueTypeI32

var requiredExports = []export{
	{"floe_alloc", []api.ValueType{i32}, []api.ValueType{i32}},
	{"floe_open", []api.ValueType{i32}, []api.ValueType{i32}},
	{"floe_process", []api.ValueType{i32, i32}, []api.ValueType{i32}},
	{"floe_close", nil, []api.ValueType{i32}},
}

// optionalExports are checked only when present.
var optionalExports = []export{
	{"floe_on_timer", []api.ValueType{i32, api.ValueTypeI64, i32}, []api.ValueType{i32}},
	{"floe_on_checkpoint_complete", []api.ValueType{api.ValueTypeI64}, []api.ValueType{i32}},
	{"floe_window", []api.ValueType{i32, i32}, []api.ValueType{i32}},
	{"floe_process2", []api.ValueType{i32, i32}, []api.ValueType{i32}},
	{"floe_functions", nil, []api.ValueType{api.ValueTypeI64}},
}

// checkExports refuses a module without the ABI's exports.
func checkExports(name string, cm wazero.CompiledModule) error {
	fns := cm.ExportedFunctions()
	var missing []string
	for _, x := range requiredExports {
		f, ok := fns[x.name]
		if !ok {
			missing = append(missing, x.name)
			continue
		}
		if !sameTypes(f.ParamTypes(), x.params) || !sameTypes(f.ResultTypes(), x.results) {
			return badModule(name, "export %s has signature %s, want %s", x.name,
				signature(f.ParamTypes(), f.ResultTypes()), signature(x.params, x.results))
		}
	}
	if len(missing) > 0 {
		return badModule(name, "lacks the exports %v that ABI v1 requires (is it built with a Floe SDK?)", missing)
	}
	for _, x := range optionalExports {
		if f, ok := fns[x.name]; ok && (!sameTypes(f.ParamTypes(), x.params) || !sameTypes(f.ResultTypes(), x.results)) {
			return badModule(name, "export %s has signature %s, want %s", x.name,
				signature(f.ParamTypes(), f.ResultTypes()), signature(x.params, x.results))
		}
	}
	if _, ok := cm.ExportedMemories()["memory"]; !ok {
		return badModule(name, "exports no memory named \"memory\"")
	}
	return nil
}

func sameTypes(a, b []api.ValueType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func signature(params, results []api.ValueType) string {
	names := func(ts []api.ValueType) string {
		s := "("
		for i, t := range ts {
			if i > 0 {
				s += ", "
			}
			s += api.ValueTypeName(t)
		}
		return s + ")"
	}
	return names(params) + " -> " + names(results)
}
