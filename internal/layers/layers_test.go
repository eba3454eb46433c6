package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

// module is the import path that every package of Floe starts with.
const module = "github.com/floe-stream/floe"

// A layer is a group of packages that may import one another and the
// packages of the layers it names. Patterns are relative to the module root:
// "x" is the package x, "x/..." is x and every package below it. A package
// belongs to the layer whose matching pattern is the most specific.
type layer struct {
	name string
	pkgs []string
	// imports names the other layers whose packages this layer's packages,
	// and their tests, may import.
	imports []string
	// testImports names the layers that only the layer's tests may import,
	// besides those in imports.
	testImports []string
	// forTests marks a layer of helpers that exist for tests: the tests of a
	// package in any layer may import them.
	forTests bool
	// why is the reason for the layer's place, quoted in violations.
	why string
}

// layers is Floe's layering, bottom to top. RATIONALE.md ("How the packages
// are layered, and why") says the same in prose; change both together.
var layers = []layer{
	{
		name: "storage",
		pkgs: []string{"storage/..."},
		why:  "storage is the bottom layer: it knows bytes, keys, key groups and files, and nothing of jobs, tasks or the scheduler",
	},
	{
		name:    "shared",
		pkgs:    []string{"internal/...", "proto/..."},
		imports: []string{"storage"},
		// The job spec's tests parse whole specs, which name connectors, so
		// they link the real connectors' sections as every program does.
		testImports: []string{"connectors"},
		why:         "top-level internal/ and proto/ hold what the scheduler and the task managers share (job spec, plan, checkpoint metadata, wire types); they build on storage only, so nothing under host/ is imported from there",
	},
	{
		name:    "udf",
		pkgs:    []string{"host/udf", "host/record", "host/internal/..."},
		imports: []string{"storage", "shared"},
		why:     "host/udf, the Wasm boundary, and host/record, the batches that cross it, are a leaf that the scheduler also uses (to check a module at submission); they cannot depend on the runtime that drives them",
	},
	{
		name:    "connectors",
		pkgs:    []string{"host/connector/..."},
		imports: []string{"storage", "shared", "udf"},
		why:     "a connector owns its job-spec section and its source or sink, and registers both by type; it knows record batches and the job spec, not the task that drives it",
	},
	{
		name:    "runtime",
		pkgs:    []string{"host/..."},
		imports: []string{"storage", "shared", "udf", "connectors"},
		why:     "the task runtime (task, exchange, transport, window, timer, eventtime, connectors) runs inside a task manager; it does not know the task manager that hosts it or the scheduler",
	},
	{
		name:    "taskmanager",
		pkgs:    []string{"host/taskmanager"},
		imports: []string{"storage", "shared", "udf", "connectors", "runtime"},
		why:     "host/taskmanager serves the scheduler's RPCs and drives the runtime; it talks to the scheduler only through proto/",
	},
	{
		name:    "scheduler",
		pkgs:    []string{"scheduler/..."},
		imports: []string{"storage", "shared", "udf", "connectors"},
		why:     "the scheduler knows tasks only through proto/ and deploys them by RPC, so it imports no part of a task manager but the Wasm boundary and the connectors, whose job-spec sections it needs to parse and check the specs it is sent",
	},
	{
		name:    "minicluster",
		pkgs:    []string{"minicluster/..."},
		imports: []string{"storage", "shared", "udf", "connectors", "runtime", "taskmanager", "scheduler"},
		why:     "the mini-cluster embeds a scheduler and task managers in one process; only the floe command and the tests sit above it",
	},
	{
		name:    "cmd",
		pkgs:    []string{"cmd/..."},
		imports: []string{"storage", "shared", "udf", "connectors", "runtime", "taskmanager", "scheduler", "minicluster", "sdk"},
		why:     "the floe command parses flags and calls the constructors below it; nothing imports a command",
	},
	{
		name: "sdk",
		pkgs: []string{"sdk/...", "udfs/..."},
		why:  "the guest SDKs, the package that embeds them for `floe new`, and the operator modules built on them compile apart from the host and reach it only through the ABI",
	},
	{
		name:     "test helpers",
		pkgs:     []string{"tests/nexmark", "tests/textgen", "tests/s3server"},
		imports:  []string{"storage", "shared", "udf", "connectors", "runtime"},
		forTests: true,
		why:      "the test oracles and servers under tests/ serve the tests of any layer, so they import nothing above the runtime",
	},
	{
		name:    "tests",
		pkgs:    []string{"tests/...", "udfs/conformance"},
		imports: []string{"storage", "shared", "udf", "connectors", "runtime", "taskmanager", "scheduler", "minicluster", "cmd", "sdk", "test helpers"},
		why:     "the end-to-end, cluster and conformance tests and the benchmarks sit above everything and nothing imports them",
	},
}

// A library is a third-party module that only the packages at Floe's edges
// may import, so that the cores build on the standard library, wazero and
// pebble alone. Its rule covers a package's tests as well.
type library struct {
	name string
	// paths are import paths; a path covers the packages below it too.
	paths []string
	// allowed are the packages that may import it, as patterns.
	allowed []string
	why     string
}

var libraries = []library{
	{
		name: "grpc",
		// The generated proto/ package carries grpc's service stubs, so
		// importing it counts as importing grpc.
		paths:   []string{"google.golang.org/grpc", module + "/proto"},
		allowed: []string{"proto/...", "host/transport", "host/taskmanager", "scheduler", "internal/tlsconf", "tests/..."},
		why:     "grpc is the wire between the scheduler and the task managers and between exchanges; only the packages that serve or dial it import it, and internal/tlsconf, which turns the cluster's TLS identity into grpc's credentials and the interceptor that checks a caller's role, for the scheduler and the task managers alike",
	},
	{
		name:    "minio-go",
		paths:   []string{"github.com/minio/minio-go"},
		allowed: []string{"storage/ckstore/s3store/...", "tests/..."},
		why:     "the S3 client lives behind the checkpoint store's interface in storage/ckstore/s3store",
	},
	{
		name:    "franz-go",
		paths:   []string{"github.com/twmb/franz-go"},
		allowed: []string{"host/connector/kafka/...", "tests/..."},
		why:     "the Kafka client lives in the Kafka connector, behind host/connector's source and sink interfaces",
	},
	{
		name: "hashicorp/raft",
		// raft-boltdb is a module of its own, not a package below raft;
		// go-hclog is raft's logger, adapted to slog in replog.
		paths:   []string{"github.com/hashicorp/raft", "github.com/hashicorp/raft-boltdb", "github.com/hashicorp/go-hclog"},
		allowed: []string{"scheduler/internal/replog"},
		why:     "Raft is the scheduler's replicated log and nothing more: scheduler/internal/replog wraps it behind an FSM of opaque commands, so the job state machine, the REST and RPC servers and the tests never see raft's types and the library could be replaced in one package",
	},
	{
		name:    "client_golang",
		paths:   []string{"github.com/prometheus/client_golang"},
		allowed: []string{"host/metrics", "scheduler/internal/schedmetrics", "cmd/..."},
		why:     "Prometheus is how metrics leave the process, not how they are kept: tasks and instances keep plain atomic counters that heartbeats read too, and host/metrics alone turns them into Prometheus metrics at scrape time, so the runtime does not depend on client_golang's types or pay for its per-call work; likewise the scheduler's lifecycle keeps plain state and scheduler/internal/schedmetrics alone reads a snapshot of it at scrape time",
	},
	{
		name:    "cobra",
		paths:   []string{"github.com/spf13/cobra", "github.com/spf13/pflag"},
		allowed: []string{"cmd/..."},
		why:     "cobra and pflag are the command line: commands, --long flags, help, suggestions and shell completion belong to the binary in cmd/floe, which turns flags into the configs of the embeddable constructors below it; no library package takes its options from a flag set",
	},
	{
		name:    "go-humanize",
		paths:   []string{"github.com/dustin/go-humanize"},
		allowed: []string{"cmd/..."},
		why:     "human sizes such as --max-memory 256MiB are how a person writes a flag; the packages below take plain byte counts",
	},
	{
		name: "pg_query_go",
		// pg_query_go links libpg_query through cgo: PostgreSQL's own
		// parser, chosen for stream SQL in RATIONALE.md.
		paths:   []string{"github.com/pganalyze/pg_query_go"},
		allowed: []string{"internal/sqlc", "tests/..."},
		why:     "the SQL grammar is needed only where SQL text is compiled into a job spec; what the task managers run (internal/sqlprog, internal/sqlexpr) is JSON that the compiler wrote, so the runtime, the scheduler's spec checks and the cores link no parser and no cgo for it",
	},
	{
		name: "chromedp",
		// cdproto is chromedp's generated DevTools protocol, a module of
		// its own.
		paths:   []string{"github.com/chromedp/chromedp", "github.com/chromedp/cdproto"},
		allowed: []string{"tests/ui"},
		why:     "chromedp drives a headless Chromium to test the dashboard end to end; the dashboard itself is static files the scheduler embeds, so no program of Floe links a browser driver",
	},
}

// A forbiddenEdge is an import that the layers allow but the design does not.
// It covers a package's own imports, not its tests'.
type forbiddenEdge struct {
	name   string
	from   string
	to     string
	except []string
	why    string
}

var forbiddenEdges = []forbiddenEdge{
	{
		name:   "task imports no connector",
		from:   "host/task",
		to:     "host/connector/...",
		except: []string{"host/connector"},
		why:    "the task runtime looks connectors up by type in host/connector's registry, so that adding a connector touches one folder",
	},
}

// pkg is what `go list -json` reports about one package.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

// goList returns every package of the module with its imports. It runs
// `go list` once for all the tests in the package.
func goList(t *testing.T) []pkg {
	t.Helper()
	pkgs, err := listOnce()
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

var listOnce = sync.OnceValues(func() ([]pkg, error) {
	// NB: `go test` puts the go command it runs under first in PATH.
	cmd := exec.Command("go", "list", "-e",
		"-json=ImportPath,Imports,TestImports,XTestImports,Error", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w\n%s", err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decoding go list's output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return nil, errors.New("go list found no packages")
	}
	return pkgs, nil
})

// rel returns path relative to the module root, and whether it is in the
// module at all.
func rel(path string) (string, bool) {
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// specificity returns how closely pattern matches the module-relative path
// p, or -1 when it does not match. An exact pattern beats "x/..." for the
// package x, and a longer pattern beats a shorter one.
func specificity(pattern, p string) int {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		if p == base || strings.HasPrefix(p, base+"/") {
			return 2 * len(base)
		}
		return -1
	}
	if p == pattern {
		return 2*len(pattern) + 1
	}
	return -1
}

func matchesAny(patterns []string, p string) bool {
	return slices.ContainsFunc(patterns, func(pat string) bool { return specificity(pat, p) >= 0 })
}

// layerOf returns the layer that the module-relative path p belongs to, or
// nil.
func layerOf(p string) *layer {
	var best *layer
	bestScore := -1
	for i := range layers {
		for _, pat := range layers[i].pkgs {
			if s := specificity(pat, p); s > bestScore {
				best, bestScore = &layers[i], s
			}
		}
	}
	return best
}

// An edge is one import of one package.
type edge struct {
	from, to string // from is module-relative; to is module-relative when in the module.
	test     bool   // the import is in the package's tests
	internal bool   // to is a package of the module
}

func edges(pkgs []pkg) []edge {
	var es []edge
	add := func(from string, imports []string, test bool) {
		for _, imp := range imports {
			to, internal := rel(imp)
			if !internal {
				to = imp
			}
			es = append(es, edge{from: from, to: to, test: test, internal: internal})
		}
	}
	for _, p := range pkgs {
		from, _ := rel(p.ImportPath)
		add(from, p.Imports, false)
		add(from, p.TestImports, true)
		add(from, p.XTestImports, true)
	}
	return es
}

func (e edge) String() string {
	if e.test {
		return fmt.Sprintf("%s (in its tests) imports %s", e.from, e.to)
	}
	return fmt.Sprintf("%s imports %s", e.from, e.to)
}

// TestTables checks the tables themselves: every layer a layer names exists,
// and every pattern names a package that exists, so the tables stay true to
// the tree.
func TestTables(t *testing.T) {
	names := map[string]bool{}
	for _, l := range layers {
		names[l.name] = true
	}
	for _, l := range layers {
		for _, n := range slices.Concat(l.imports, l.testImports) {
			if !names[n] {
				t.Errorf("layer %q may import layer %q, which does not exist", l.name, n)
			}
		}
	}
	var all []string
	for _, p := range goList(t) {
		r, _ := rel(p.ImportPath)
		all = append(all, r)
	}
	check := func(what string, patterns []string) {
		for _, pat := range patterns {
			if !slices.ContainsFunc(all, func(p string) bool { return specificity(pat, p) >= 0 }) {
				t.Errorf("%s lists %q, which matches no package", what, pat)
			}
		}
	}
	for _, l := range layers {
		check("layer "+l.name, l.pkgs)
	}
	for _, lib := range libraries {
		check("library "+lib.name, lib.allowed)
	}
	for _, f := range forbiddenEdges {
		check("rule "+f.name, []string{f.from, f.to})
	}
}

// TestLayers fails on every import that runs from a layer to one it may not
// import, and on every package that belongs to no layer.
func TestLayers(t *testing.T) {
	pkgs := goList(t)
	for _, p := range pkgs {
		r, _ := rel(p.ImportPath)
		if layerOf(r) == nil {
			t.Errorf("%s belongs to no layer: add it to the layers table in internal/layers/layers_test.go and to RATIONALE.md", r)
		}
	}
	for _, e := range edges(pkgs) {
		if !e.internal {
			continue
		}
		from, to := layerOf(e.from), layerOf(e.to)
		if from == nil || to == nil || from == to || slices.Contains(from.imports, to.name) {
			continue
		}
		if e.test && (to.forTests || slices.Contains(from.testImports, to.name)) {
			continue
		}
		t.Errorf("%s: breaks rule %q: layer %q (%s) may import only %s; %s",
			e, "layers", from.name, strings.Join(from.pkgs, ", "), list(from.imports), from.why)
	}
}

// list renders layer names for a message.
func list(names []string) string {
	if len(names) == 0 {
		return "itself"
	}
	return "itself and " + strings.Join(names, ", ")
}

// TestEdgeLibraries fails on every import of grpc, minio-go, franz-go or raft
// outside the packages at the edges.
func TestEdgeLibraries(t *testing.T) {
	for _, e := range edges(goList(t)) {
		for _, lib := range libraries {
			if !importsLibrary(e, lib) || matchesAny(lib.allowed, e.from) {
				continue
			}
			t.Errorf("%s: breaks rule %q: only %s may import it; %s",
				e, lib.name+" only at the edges", strings.Join(lib.allowed, ", "), lib.why)
		}
	}
}

func importsLibrary(e edge, lib library) bool {
	path := e.to
	if e.internal {
		path = module + "/" + e.to
	}
	return slices.ContainsFunc(lib.paths, func(p string) bool {
		return path == p || strings.HasPrefix(path, p+"/")
	})
}

// TestForbiddenEdges fails on the single imports that the layers allow but
// the design does not.
func TestForbiddenEdges(t *testing.T) {
	for _, e := range edges(goList(t)) {
		if e.test || !e.internal {
			continue
		}
		for _, f := range forbiddenEdges {
			if specificity(f.from, e.from) < 0 || specificity(f.to, e.to) < 0 || matchesAny(f.except, e.to) {
				continue
			}
			t.Errorf("%s: breaks rule %q: %s", e, f.name, f.why)
		}
	}
}
