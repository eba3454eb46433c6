package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/storage/keygroup"
)

// sdkQ1 and sdkCount return the run functions of the rows that time q1
// and the keyed count of a language's conformance module
// (udfs/conformance/<lang>) through the q1-map and keyed-count-pebble
// workloads: q1-map-c, keyed-count-pebble-c, and so on.
func sdkQ1(lang string) func(*env) (Result, error) {
	return func(e *env) (Result, error) { return benchSDKQ1(e, lang) }
}

func sdkCount(lang string) func(*env) (Result, error) {
	return func(e *env) (Result, error) { return benchSDKCount(e, lang) }
}

// benchSDKQ1 is benchQ1 with the q1 function of a language's conformance
// module in place of udfs/q1.
func benchSDKQ1(e *env, lang string) (Result, error) {
	name := "q1-map-" + lang
	module, err := e.sdkModule(lang)
	if err != nil {
		return notMeasured(name, lang, err), nil
	}
	w := q1Workload(e.cfg.Records)
	wasm := openWasm(e, module, q1Config(), false)
	if err := compare(e.ctx, w, compareBatches, wasm, openQ1Native); err != nil {
		return Result{}, fmt.Errorf("%s and native disagree: %w", lang, err)
	}
	r, err := measure(e, name, w, wasm, openQ1Native)
	return sdkResult(r, lang, "q1", "udfs/q1"), err
}

// benchSDKCount is benchKeyedCount with the keyedcount function of a
// language's conformance module in place of udfs/keyedcount's count. Both
// declare value state "count" of the same operator, so the state keys are
// the same as the native side's.
func benchSDKCount(e *env, lang string) (Result, error) {
	name := "keyed-count-pebble-" + lang
	module, err := e.sdkModule(lang)
	if err != nil {
		return notMeasured(name, lang, err), nil
	}
	w := countWorkload(e.cfg.Records, e.cfg.Keys, 1)
	cfg := udf.InstanceConfig{
		Function: "keyedcount", Operator: countOperator,
		Params: map[string]string{"floe.max_parallelism": strconv.Itoa(keygroup.DefaultMaxParallelism)},
	}
	wasm, native := openWasm(e, module, cfg, true), openCountNative(e)
	if err := compare(e.ctx, w, compareBatches, wasm, native); err != nil {
		return Result{}, fmt.Errorf("%s and native disagree: %w", lang, err)
	}
	r, err := measure(e, name, w, wasm, native)
	return sdkResult(r, lang, "keyedcount", "udfs/keyedcount's count"), err
}

// sdkResult adds what an sdk row measured to its result.
func sdkResult(r Result, lang, function, goRow string) Result {
	r.Extra = map[string]any{"sdk": lang, "module": "udfs/conformance/" + lang, "function": function}
	r.Summary = fmt.Sprintf("the %s SDK's %s (udfs/conformance/%s) at %s records/s, the same operator in native Go at %s records/s: %.2f (compare with the Go SDK's %s in the row without a suffix)",
		lang, function, lang, human(r.RecordsPerSec), human(r.NativeRecordsPerSec), r.Ratio, goRow)
	return r
}

// notMeasured is the row of an SDK whose module could not be built, so
// that a missing toolchain does not stop the other rows.
func notMeasured(name, lang string, err error) Result {
	msg := strings.TrimSpace(err.Error())
	return Result{Name: name, Baseline: "not measured",
		Extra:   map[string]any{"sdk": lang, "error": msg},
		Summary: "not measured: " + msg}
}

// sdkModule builds the conformance module of lang with its build.sh, as
// udfs/conformance's suite does, compiles it into the env's engine and
// returns the name openWasm knows it by. A build failure, such as a
// missing toolchain, is returned with build.sh's message.
func (e *env) sdkModule(lang string) (string, error) {
	name := "conformance-" + lang
	if _, ok := e.modules[name]; ok {
		return name, nil
	}
	dir := filepath.Join(e.root, "udfs", "conformance", lang)
	out := filepath.Join(e.dir, name+".wasm")
	cmd := exec.Command("sh", filepath.Join(dir, "build.sh"), out)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the %s conformance module: %v: %s", lang, err, strings.TrimSpace(string(b)))
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		return "", err
	}
	m, err := e.engine.Compile(e.ctx, name, wasm)
	if err != nil {
		return "", fmt.Errorf("compiling the %s conformance module: %w", lang, err)
	}
	e.modules[name] = m
	return name, nil
}
