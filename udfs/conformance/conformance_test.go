// Package conformance runs the SDK conformance suite: the operators of
// README.md, written once per SDK language, through the real host on the
// scripts in testdata. Every language must produce the transcripts written
// there by hand from README.md, byte for byte, and the same transcripts as
// the Go SDK on a larger random input.
package conformance

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/timer"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/state"
)

// languages are the SDKs held to the suite. Each has a directory here with
// build.sh, except Go, built like every Go operator.
var languages = []string{"go", "c", "rust", "as"}

// only restricts the run to some languages (FLOE_CONFORMANCE=go,c), for SDK
// work in progress; make test runs them all.
func only() []string {
	if s := os.Getenv("FLOE_CONFORMANCE"); s != "" {
		return strings.Split(s, ",")
	}
	return languages
}

var (
	engineOnce sync.Once
	engine     *udf.Engine
	engineErr  error
	modules    sync.Map // language -> *udf.Module
)

// module builds and compiles a language's conformance module once.
func module(t *testing.T, lang string) *udf.Module {
	t.Helper()
	if m, ok := modules.Load(lang); ok {
		return m.(*udf.Module)
	}
	engineOnce.Do(func() { engine, engineErr = udf.NewEngine(context.Background(), udf.Config{}) })
	if engineErr != nil {
		t.Fatal(engineErr)
	}
	out := filepath.Join(buildDir, lang+".wasm")
	if lang == "go" {
		p, err := wasmbuild.Go("go", filepath.Join(buildDir, "go"))
		if err != nil {
			t.Fatal(err)
		}
		out = p
	} else {
		script, err := filepath.Abs(filepath.Join(lang, "build.sh"))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", script, out)
		cmd.Dir = lang
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building the %s conformance module: %v\n%s", lang, err, b)
		}
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m, err := engine.Compile(context.Background(), lang, wasm)
	if err != nil {
		t.Fatal(err)
	}
	modules.Store(lang, m)
	return m
}

var buildDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "floe-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestConformance runs every script against every language.
func TestConformance(t *testing.T) {
	for _, lang := range only() {
		t.Run(lang, func(t *testing.T) {
			mod := module(t, lang)
			datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
				h := &harness{mod: mod}
				defer h.close()
				datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
					return h.run(t, d)
				})
			})
		})
	}
}

// TestAgreeOnRandomInput runs every function over the same random records in
// every language and compares each transcript with the Go SDK's.
func TestAgreeOnRandomInput(t *testing.T) {
	scripts := randomScripts(rand.New(rand.NewPCG(7, 11)))
	want := map[string]string{}
	for _, s := range scripts {
		want[s.name] = runScript(t, module(t, "go"), s)
	}
	for _, lang := range only() {
		if lang == "go" {
			continue
		}
		t.Run(lang, func(t *testing.T) {
			mod := module(t, lang)
			for _, s := range scripts {
				if got := runScript(t, mod, s); got != want[s.name] {
					t.Errorf("%s: transcript differs from the Go SDK's:\n%s", s.name, firstDiff(want[s.name], got))
				}
			}
		})
	}
}

// harness drives one instance through a script.
type harness struct {
	mod     *udf.Module
	in      *udf.Instance
	backend *state.Backend
	timers  *timer.Queue
	lists   *udf.OperatorLists
	maxPar  int
	now     int64
	dead    bool
	hex     bool     // the current batch's values are written and printed in hex
	side    []string // side output names by port - 1
}

func (h *harness) close() {
	if h.in != nil && !h.dead {
		h.in.Close(context.Background())
	}
	h.in = nil
}

func (h *harness) run(t *testing.T, d *datadriven.TestData) string {
	ctx := context.Background()
	h.hex = d.HasArg("hex")
	switch d.Cmd {
	case "open":
		return h.open(t, d)
	case "batch", "batch2":
		input := 0
		if d.Cmd == "batch2" {
			input = 1
		}
		b := h.parseBatch(t, d.Input)
		var out record.Batch
		return h.result(h.in.ProcessInput(ctx, input, b, &out), &out)
	case "watermark":
		ts := h.intArg(t, d)
		h.in.SetWatermark(ts)
		return h.fire(ctx, udf.EventTime, ts)
	case "processing-time":
		h.now = h.intArg(t, d)
		return h.fire(ctx, udf.ProcessingTime, h.now)
	case "state":
		return h.state(t, d)
	case "broadcast":
		return h.broadcastState(t, d)
	case "sql-aggregate":
		return h.sqlAggregate(t, d)
	case "close":
		err := h.in.Close(ctx)
		h.dead = true
		if err != nil {
			return "error: " + err.Error()
		}
		return "ok"
	}
	t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
	return ""
}

// open instantiates the module with the command's arguments as parameters.
// Input lines "NAME even-split|union ELEM…" preset operator list state.
func (h *harness) open(t *testing.T, d *datadriven.TestData) string {
	h.close()
	params := map[string]string{"floe.operator": "op", "floe.job": "conformance",
		"floe.subtask": "0", "floe.parallelism": "1", "floe.max_parallelism": "128"}
	keyed := false
	fn, fn2 := "", ""
	bcast := -1
	for _, a := range d.CmdArgs {
		v := strings.Join(a.Vals, ",")
		switch a.Key {
		case "keyed":
			keyed = true
		case "function":
			fn = v
		case "function2":
			fn2 = v
		case "broadcast":
			bcast, _ = strconv.Atoi(v)
		case "subtask", "parallelism":
			params["floe."+a.Key] = v
		case "max-parallelism":
			params["floe.max_parallelism"] = v
		default:
			params[a.Key] = v
		}
	}
	h.now = 0
	h.maxPar, _ = strconv.Atoi(params["floe.max_parallelism"])
	h.lists = udf.NewOperatorLists()
	for _, line := range nonEmptyLines(d.Input) {
		f := strings.Fields(line)
		if len(f) < 2 {
			t.Fatalf("%s: want \"NAME even-split|union ELEM…\", got %q", d.Pos, line)
		}
		kind := udf.KindEvenSplitList
		switch f[1] {
		case "union":
			kind = udf.KindUnionList
		case "broadcast":
			kind = udf.KindBroadcastMap
		}
		var elems [][]byte
		for _, e := range f[2:] {
			if kind == udf.KindBroadcastMap {
				k, v, _ := strings.Cut(e, "=")
				elems = append(elems, append(binary.LittleEndian.AppendUint32(nil, uint32(len(k))), k+v...))
				continue
			}
			elems = append(elems, []byte(e))
		}
		h.lists.Preset("op/"+f[0], kind, elems)
	}
	h.backend = state.New(memkv.New())
	tm, err := h.backend.Map(timer.Namespace("op"))
	if err != nil {
		t.Fatal(err)
	}
	h.timers = timer.New(tm)
	cfg := udf.InstanceConfig{
		Function: fn, Function2: fn2, Operator: "op", Params: params, KeyedInput: keyed,
		OperatorState: h.lists, CallTimeout: time.Minute,
		Now: func() time.Time { return time.UnixMilli(h.now) },
	}
	if bcast >= 0 {
		cfg.Broadcast, cfg.BroadcastInput = true, bcast
	}
	if keyed {
		cfg.Keyed = keyedBackend{h.backend}
		cfg.Timers = h.timers
	}
	h.dead = false
	in, err := h.mod.Instantiate(context.Background(), cfg)
	if err != nil {
		h.dead = true
		msg, _, _ := strings.Cut(guestMessage(err), " (")
		return "error: " + msg
	}
	h.in = in
	return "ok"
}

// parseBatch reads "key@ts value" lines (ts "-" for none), or bare values;
// values in hex for "batch hex".
func (h *harness) parseBatch(t *testing.T, input string) *record.Batch {
	var b record.Batch
	for _, line := range nonEmptyLines(input) {
		first, rest, _ := strings.Cut(line, " ")
		k, ts, ok := strings.Cut(first, "@")
		if !ok {
			rest = line
		}
		value := []byte(rest)
		if h.hex {
			var err error
			if value, err = hex.DecodeString(rest); err != nil {
				t.Fatalf("bad hex value in %q: %v", line, err)
			}
		}
		if !ok {
			b.Append(nil, value, record.NoTimestamp)
			continue
		}
		t64 := record.NoTimestamp
		if ts != "-" {
			n, err := strconv.ParseInt(ts, 10, 64)
			if err != nil {
				t.Fatalf("bad timestamp in %q", line)
			}
			t64 = n
		}
		if k == "" {
			b.Append(nil, value, t64)
			continue
		}
		b.AppendKeyed([]byte(k), value, t64, keygroup.Of([]byte(k), h.maxPar))
	}
	return &b
}

// fire calls the timers of domain d due at upTo.
func (h *harness) fire(ctx context.Context, d udf.TimeDomain, upTo int64) string {
	var out record.Batch
	var transcript []string
	for {
		tm, ok, err := h.timers.Pop(d, upTo)
		if err != nil {
			return "error: " + err.Error()
		}
		if !ok {
			break
		}
		out.Reset()
		if err := h.in.FireTimer(ctx, d, tm.Timestamp, tm.KeyGroup, tm.Key, &out); err != nil {
			return strings.Join(append(transcript, "error: "+guestMessage(err)), "\n")
		}
		transcript = append(transcript, h.lines(&out)...)
	}
	if len(transcript) == 0 {
		return "(nothing)"
	}
	return strings.Join(transcript, "\n")
}

// result renders a call's outcome: its output records, or its error.
func (h *harness) result(err error, out *record.Batch) string {
	if err != nil {
		h.dead = true
		var ue *udf.UDFError
		if errors.As(err, &ue) && ue.Record >= 0 {
			return fmt.Sprintf("error: record %d: %s", ue.Record, guestMessage(err))
		}
		return "error: " + guestMessage(err)
	}
	lines := h.lines(out)
	if len(lines) == 0 {
		return "(nothing)"
	}
	return strings.Join(lines, "\n")
}

// lines renders the main output, then each side output by name.
func (h *harness) lines(out *record.Batch) []string {
	var lines []string
	for _, r := range out.Records {
		lines = append(lines, h.line("main", &r))
	}
	names := h.in.SideOutputs()
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	for _, i := range order {
		b := h.in.SideOutput(i + 1)
		for _, r := range b.Records {
			lines = append(lines, h.line(names[i], &r))
		}
		b.Reset()
	}
	return lines
}

func (h *harness) line(port string, r *record.Record) string {
	ts := "-"
	if r.Timestamp != record.NoTimestamp {
		ts = strconv.FormatInt(r.Timestamp, 10)
	}
	if h.hex {
		return fmt.Sprintf("%s @%s %x", port, ts, r.Value)
	}
	return fmt.Sprintf("%s @%s %s", port, ts, r.Value)
}

// state prints an operator list ("state NAME") or a key's i64 value state
// ("state NAME KEY").
func (h *harness) state(t *testing.T, d *datadriven.TestData) string {
	if len(d.CmdArgs) == 1 {
		ns := "op/" + d.CmdArgs[0].Key
		for _, l := range h.lists.Snapshot() {
			if l.Namespace == ns {
				return string(bytes.Join(l.Elems, []byte(" ")))
			}
		}
		return "(none)"
	}
	name, key := d.CmdArgs[0].Key, []byte(d.CmdArgs[1].Key)
	v, err := h.backend.Value("op/" + name)
	if err != nil {
		t.Fatal(err)
	}
	b, ok, err := v.Get(keygroup.Of(key, h.maxPar), key)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return "(absent)"
	}
	if len(b) != 8 {
		return fmt.Sprintf("%q", b)
	}
	return strconv.FormatInt(int64(binary.LittleEndian.Uint64(b)), 10)
}

// broadcastState prints a broadcast map state as its checkpoint holds it
// ("broadcast NAME"): entries KEY=VALUE in the order saved.
func (h *harness) broadcastState(t *testing.T, d *datadriven.TestData) string {
	if len(d.CmdArgs) != 1 {
		t.Fatalf("%s: want \"broadcast NAME\"", d.Pos)
	}
	for _, l := range h.lists.Snapshot() {
		if l.Namespace != "op/"+d.CmdArgs[0].Key {
			continue
		}
		var es []string
		for _, e := range l.Elems {
			n := binary.LittleEndian.Uint32(e)
			es = append(es, string(e[4:4+n])+"="+string(e[4+n:]))
		}
		return "entries: " + strings.Join(es, " ")
	}
	return "(none)"
}

func (h *harness) intArg(t *testing.T, d *datadriven.TestData) int64 {
	if len(d.CmdArgs) != 1 {
		t.Fatalf("%s: %s takes one number", d.Pos, d.Cmd)
	}
	n, err := strconv.ParseInt(d.CmdArgs[0].Key, 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	return n
}

// guestMessage is the part of an error that the guest wrote: what must be
// the same in every language.
func guestMessage(err error) string {
	var ue *udf.UDFError
	if errors.As(err, &ue) {
		err = ue.Err
	}
	// NB: a host function's trap ends with wazero's note and the guest's
	// stack, which differ by SDK; the message before them does not.
	msg, _, _ := strings.Cut(err.Error(), " (recovered by wazero)")
	return msg
}

// keyedBackend adapts a state.Backend to udf.Keyed.
type keyedBackend struct{ *state.Backend }

func (k keyedBackend) Value(ns string) (udf.ValueState, error) { return k.Backend.Value(ns) }
func (k keyedBackend) List(ns string) (udf.ListState, error)   { return k.Backend.List(ns) }
func (k keyedBackend) Map(ns string) (udf.MapState, error)     { return k.Backend.Map(ns) }

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n  go:   %q\n  this: %q", i+1, a, b)
		}
	}
	return "(same lines)"
}
