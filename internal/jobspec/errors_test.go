package jobspec_test

import (
	"errors"
	"strings"
	"testing"

	_ "github.com/floe-stream/floe/host/connector/builtin"
	. "github.com/floe-stream/floe/internal/jobspec"
)

// y joins lines into a YAML document, so that a test's spec keeps its
// indentation readable and its line numbers countable.
func y(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// Valid lines that the cases below build on.
const (
	okName   = "name: j"
	okSource = "source: {type: generator, uid: src}"
	okSink   = "sink: {type: stdout, uid: out}"
	okModule = "modules: {wordcount: wordcount.wasm}"
)

// TestParseReportsEveryProblem checks the message of every kind of mistake.
// want holds one fragment per line of the error, in order: the test fails on
// a missing message as on an extra one.
func TestParseReportsEveryProblem(t *testing.T) {
	tests := []struct {
		name string
		spec string
		set  map[string]string
		want []string
	}{{
		name: "undeclared module",
		spec: y(okName, okSource, okSink, okModule,
			"operators:",
			"  - {type: map, uid: a, module: wordcount, function: f}",
			"  - {type: keyBy, uid: b, key: value}",
			"  - {type: process, uid: c, module: wc, function: count}"),
		want: []string{`line 8: operators[2].module: "wc" is not declared in modules (declared: wordcount)`},
	}, {
		name: "state readable by an unknown role",
		spec: y(okName, okSource, okSink, "state:", "  readableBy: {counts: everyone, totals: admin, '': viewer, ok: viewer}"),
		want: []string{
			`line 5: state.readableBy.: a state's name must not be empty`,
			`line 5: state.readableBy.counts: unknown role "everyone" (want viewer or operator)`,
			`line 5: state.readableBy.totals: unknown role "admin" (want viewer or operator)`,
		},
	}, {
		name: "state readableBy not a mapping",
		spec: y(okName, okSource, okSink, "state: {readableBy: [counts]}"),
		want: []string{`line 4: state.readableBy: must be a mapping, got a list`},
	}, {
		name: "too many operators",
		spec: y(okName, okSource, okSink, okModule, "operators:",
			strings.Repeat("  - {type: map, module: wordcount, function: f}\n", 1001)),
		want: []string{`operators: a job has at most 1000 operators, this one has 1001`},
	}, {
		name: "no modules at all",
		spec: y(okName, okSource, okSink, "operators: [{type: map, uid: a, module: wc, function: f}]"),
		want: []string{`operators[0].module: "wc" is not declared in modules (no modules are declared)`},
	}, {
		name: "rate not a number",
		spec: y(okName, "source: {type: file, uid: in, path: x, rate: fast}", okSink),
		want: []string{`line 2: source.rate: must be a number >= 0, got "fast"`},
	}, {
		name: "rate from a parameter not a number",
		spec: y(okName, "params: {rate: '0'}", "source: {type: file, uid: in, path: x, rate: '${rate}'}", okSink),
		set:  map[string]string{"rate": "fast"},
		want: []string{`line 3: source.rate: must be a number >= 0, got "fast"`},
	}, {
		name: "negative rate",
		spec: y(okName, "source: {type: generator, uid: in, rate: -1}", okSink),
		want: []string{`source.rate: must be a number >= 0, got "-1"`},
	}, {
		name: "job parallelism above maxParallelism",
		spec: y(okName, "parallelism: 300", okSource, okSink),
		want: []string{`line 2: parallelism: 300 exceeds maxParallelism 128`},
	}, {
		name: "stage parallelism above maxParallelism",
		spec: y(okName, "maxParallelism: 100", okSource, okSink, okModule,
			"operators: [{type: map, uid: a, module: wordcount, function: f, parallelism: 200}]"),
		want: []string{`operators[0].parallelism: 200 exceeds maxParallelism 100`},
	}, {
		name: "maxParallelism out of range hides the comparisons",
		spec: y(okName, "parallelism: 50000", "maxParallelism: 40000", okSource, okSink),
		want: []string{`maxParallelism: must be an integer from 1 to 32768, got "40000"`},
	}, {
		name: "parallelism not positive",
		spec: y(okName, "parallelism: 0", "source: {type: generator, uid: src, parallelism: two}", okSink),
		want: []string{
			`line 2: parallelism: must be an integer >= 1, got "0"`,
			`line 3: source.parallelism: must be an integer >= 1, got "two"`,
		},
	}, {
		name: "unknown operator type",
		spec: y(okName, okSource, okSink, okModule,
			"operators:",
			"  - {type: map, uid: a, module: wordcount, function: f}",
			"  - {type: reduce, uid: b}"),
		want: []string{`operators[1].type: unknown operator type "reduce" (want map, filter, flatMap, keyBy, process, coProcess, window, intervalJoin, windowJoin, union, sql, sqlGroup, sqlTopN or sqlOver)`},
	}, {
		name: "process without keyBy",
		spec: y(okName, okSource, okSink, okModule, "operators: [{type: process, uid: p, module: wordcount, function: f}]"),
		want: []string{`operators[0].type: process needs a keyBy before it (keyed state needs a key)`},
	}, {
		name: "a mistyped keyBy is reported once",
		spec: y(okName, okSource, okSink, okModule,
			"operators:",
			"  - {type: keyby, uid: k, key: value}",
			"  - {type: process, uid: p, module: wordcount, function: f}"),
		want: []string{`operators[0].type: unknown operator type "keyby"`},
	}, {
		name: "missing type and uid",
		spec: y(okName, "source: {path: x}", "sink: {type: stdout}"),
		want: []string{
			`source.type: required (want file, generator, kafka or nexmark)`,
			`source.uid: required`,
			`sink.uid: required`,
		},
	}, {
		name: "duplicate uids",
		spec: y(okName, "source: {type: generator, uid: a}", "sink: {type: stdout, uid: a}", okModule,
			"operators: [{type: map, uid: a, module: wordcount, function: f}]"),
		want: []string{
			`line 3: sink.uid: "a" is already used by source`,
			`line 5: operators[0].uid: "a" is already used by source`,
		},
	}, {
		name: "malformed names",
		spec: y("name: word count", "source: {type: generator, uid: 'a/b'}",
			"sink: {type: stdout, uid: "+strings.Repeat("x", 65)+"}"),
		want: []string{
			`name: "word count" must match [A-Za-z0-9._-]+ and be at most 64 characters`,
			`source.uid: "a/b" must match`,
			`sink.uid: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" must match`,
		},
	}, {
		name: "missing sections",
		spec: y("parallelism: 2"),
		want: []string{`name: required`, `source: required`, `sink: required`},
	}, {
		name: "unknown fields",
		spec: y(okName, "paralelism: 2", okSource, okSink, okModule,
			"operators: [{type: map, uid: a, modul: wordcount, function: f}]"),
		want: []string{
			`line 2: paralelism: unknown field (known fields: name, parallelism, maxParallelism, params, modules, source, sources, operators, sink, sinks, restartStrategy, state, checkpoints, autoscaler)`,
			`line 6: operators[0].modul: unknown field (known fields: type, uid, parallelism, module, function, functions, broadcast, key, input, inputs, window, time, allowedLateness, lateOutput, aggregate, process, sideOutputs, between, join, separator, sql)`,
			`line 6: operators[0].module: required`,
		},
	}, {
		name: "repeated field",
		spec: y(okName, "source:", "  type: generator", "  uid: a", "  uid: b", okSink),
		want: []string{`line 5: source.uid: repeated field; it is already set at line 4`},
	}, {
		name: "section of the wrong shape",
		spec: y(okName, "source: file", okSink),
		want: []string{`line 2: source: must be a mapping, got a single value`},
	}, {
		name: "value of the wrong shape",
		spec: y(okName, "source: {type: generator, uid: a, count: [1, 2]}", okSink, "operators: {type: map}"),
		want: []string{
			`source.count: must be a single value, got a list`,
			`operators: must be a list, got a mapping`,
		},
	}, {
		name: "list item of the wrong shape keeps the other indexes",
		spec: y(okName, okSource, okSink, okModule,
			"operators:",
			"  - split",
			"  - {type: map, uid: b, module: nope, function: f}"),
		want: []string{
			`line 6: operators[0]: must be a mapping, got a single value`,
			`line 7: operators[1].module: "nope" is not declared`,
		},
	}, {
		name: "modules of the wrong shape",
		spec: y(okName, okSource, okSink, "modules: [a.wasm]", "operators: [{type: map, uid: a, module: a, function: f}]"),
		want: []string{`line 4: modules: must be a mapping, got a list`},
	}, {
		name: "empty list item",
		spec: y(okName, okSource, okSink, "operators:", "  -", "  - {type: keyBy, uid: k, key: nope}"),
		want: []string{
			`line 5: operators[0].type: required (want map, filter, flatMap, keyBy, process, coProcess, window, intervalJoin, windowJoin, union, sql, sqlGroup, sqlTopN or sqlOver)`,
			`line 5: operators[0].uid: required`,
			`line 6: operators[1].key: invalid key "nope"`,
		},
	}, {
		name: "module without a path",
		spec: y(okName, okSource, okSink, "modules: {a: ~, b: ''}"),
		want: []string{`modules.a: required`, `modules.b: must not be empty`},
	}, {
		name: "file source with generator fields",
		spec: y(okName, "source: {type: file, uid: a, path: x, count: 5, kind: random}", okSink),
		want: []string{
			`source.count: only applies to a generator or nexmark source`,
			`source.kind: only applies to a generator source`,
		},
	}, {
		name: "file source without path",
		spec: y(okName, "source: {type: file, uid: a, follow: yes}", okSink),
		want: []string{
			`source.path: required`,
			`source.follow: must be true or false, got "yes"`,
		},
	}, {
		name: "generator with file fields",
		spec: y(okName, "source: {type: generator, uid: a, path: x, follow: true, keys: 5, count: -5}", okSink),
		want: []string{
			`source.path: only applies to a file source`,
			`source.follow: only applies to a file source`,
			`source.count: must be an integer >= 0, got "-5"`,
			`source.keys: only applies to kind random`,
		},
	}, {
		name: "random generator limits",
		spec: y(okName, "source: {type: generator, uid: a, kind: random, keys: 0, size: 2000000}", okSink),
		want: []string{
			`source.keys: must be an integer >= 1, got "0"`,
			`source.size: must be an integer from 1 to 1048576, got "2000000"`,
		},
	}, {
		name: "unknown source and generator kind",
		spec: y(okName, "source: {type: pulsar, uid: a}", okSink),
		want: []string{`source.type: unknown source type "pulsar" (want file, generator, kafka or nexmark)`},
	}, {
		name: "unknown generator kind",
		spec: y(okName, "source: {type: generator, uid: a, kind: zipf}", okSink),
		want: []string{`source.kind: unknown generator kind "zipf" (want sequence or random)`},
	}, {
		name: "keyBy keys",
		spec: y(okName, okSource, okSink, okModule,
			"operators:",
			"  - {type: keyBy, uid: a}",
			"  - {type: keyBy, uid: b, key: 'csv:x'}",
			"  - {type: keyBy, uid: c, key: 'csv:-1'}",
			"  - {type: keyBy, uid: d, key: value, module: wordcount, function: f}",
			"  - {type: keyBy, uid: e, key: function}",
			"  - {type: map, uid: f, key: value, module: wordcount, function: f}"),
		want: []string{
			`line 6: operators[0].key: required (want value, csv:N, row:N, text:N or function)`,
			`line 7: operators[1].key: invalid key "csv:x" (want value, csv:N with N >= 0, row:N or text:N with N >= 0, or function)`,
			`line 8: operators[2].key: invalid key "csv:-1"`,
			`line 9: operators[3].module: only applies to a keyBy whose key is function`,
			`line 9: operators[3].function: only applies to a keyBy whose key is function`,
			`line 10: operators[4].module: required`,
			`line 10: operators[4].function: required`,
			`line 11: operators[5].key: only applies to keyBy`,
		},
	}, {
		name: "sql operators",
		spec: y(okName, okSource, okSink, okModule,
			"operators:",
			"  - {type: sql, uid: a}",
			`  - {type: sql, uid: b, sql: '{"in":"csv"'}`,
			`  - {type: sql, uid: c, sql: '{"in":"xml","columns":[],"select":[],"names":[],"out":"csv"}'}`,
			`  - {type: sql, uid: d, module: wordcount, function: f, sql: '{}'}`,
			`  - {type: map, uid: e, module: wordcount, function: f, sql: '{}'}`,
			"  - {type: keyBy, uid: k, key: 'row:1'}",
			`  - {type: window, uid: w, window: {type: tumbling, size: 1s}, sql: '{"input":["VARCHAR"],"keys":1,"aggs":[{"fn":"sum","arg":0}]}'}`,
			`  - {type: window, uid: x, window: {type: tumbling, size: 1s}, aggregate: f, sql: '{"input":[],"keys":0,"aggs":[]}'}`,
			"  - {type: keyBy, uid: k2, input: e, key: 'row:1'}",
			`  - {type: intervalJoin, uid: j, inputs: [k, k2], between: [0s, 1s], sql: '{"right":0}'}`,
			`  - {type: windowJoin, uid: j2, inputs: [k, k2], window: {type: tumbling, size: 1s}, separator: '|', sql: '{"right":2}'}`,
			`  - {type: sqlTopN, uid: tn, input: k, sql: '{"input":["BIGINT"],"keys":1,"order":[],"n":1}'}`),
		want: []string{
			`line 6: operators[0].sql: required`,
			`line 7: operators[1].sql: not a SQL program: unexpected EOF`,
			`line 8: operators[2].sql: in: unknown format "xml" (want row, csv or json)`,
			`line 9: operators[3].module: only applies to an operator that calls a function (a sql operator runs its program)`,
			`line 9: operators[3].function: only applies to an operator that calls a function (a sql operator runs its program)`,
			`line 9: operators[3].sql: in: unknown format "" (want row, csv or json)`,
			`line 10: operators[4].sql: only applies to a sql, sqlGroup, sqlTopN or sqlOver operator, a window or a join`,
			`line 12: operators[6].sql: aggs[0]: sum wants a number, got VARCHAR`,
			`line 13: operators[7].aggregate: only applies to a window with a Wasm function (this one's is sql:)`,
			`line 13: operators[7].uid: nothing reads "x": name it in the inputs of an operator or a sink`,
			`line 15: operators[9].sql: right: a right row has at least one value, got 0`,
			`line 15: operators[9].uid: nothing reads "j": name it in the inputs of an operator or a sink`,
			`line 16: operators[10].separator: only applies to a join without sql: (a SQL join builds its rows itself)`,
			`line 16: operators[10].uid: nothing reads "j2": name it in the inputs of an operator or a sink`,
			`line 17: operators[11].sql: order: a ranking needs at least one sort key`,
		},
	}, {
		name: "sink fields",
		spec: y(okName, okSource, "sink: {type: file, uid: out}"),
		want: []string{`sink.path: required`},
	}, {
		name: "stdout sink with a path",
		spec: y(okName, okSource, "sink: {type: stdout, uid: out, path: x}"),
		want: []string{`sink.path: only applies to a file sink`},
	}, {
		name: "unknown sink type",
		spec: y(okName, okSource, "sink: {type: pulsar, uid: out}"),
		want: []string{`sink.type: unknown sink type "pulsar" (want file, kafka or stdout)`},
	}, {
		name: "restart strategy",
		spec: y(okName, okSource, okSink, "restartStrategy: {attempts: 3}"),
		want: []string{`restartStrategy.attempts: only applies to fixedDelay`},
	}, {
		name: "fixed delay restarts",
		spec: y(okName, okSource, okSink, "restartStrategy: {type: fixedDelay, attempts: 0, delay: soon}"),
		want: []string{
			`restartStrategy.attempts: must be an integer >= 1, got "0"`,
			`restartStrategy.delay: must be a duration >= 0s such as 10s or 1m30s, got "soon"`,
		},
	}, {
		name: "unknown restart strategy",
		spec: y(okName, okSource, okSink, "restartStrategy: {type: exponential}"),
		want: []string{`restartStrategy.type: unknown restart strategy "exponential" (want none, fixedDelay or exponentialDelay)`},
	}, {
		name: "exponential delay restarts",
		spec: y(okName, okSource, okSink,
			"restartStrategy:",
			"  type: exponentialDelay",
			"  initialBackoff: 0s",
			"  resetAfter: never",
			"  attempts: 3"),
		want: []string{
			`line 6: restartStrategy.initialBackoff: must be a duration >= 1ms such as 10s or 1m30s, got "0s"`,
			`line 7: restartStrategy.resetAfter: must be a duration >= 1ms such as 10s or 1m30s, got "never"`,
			`line 8: restartStrategy.attempts: only applies to fixedDelay`,
		},
	}, {
		name: "maximum backoff below the initial one",
		spec: y(okName, okSource, okSink, "restartStrategy: {type: exponentialDelay, initialBackoff: 10s, maxBackoff: 5s}"),
		want: []string{`line 4: restartStrategy.maxBackoff: must be at least initialBackoff (10s), got 5s`},
	}, {
		name: "backoffs of another strategy",
		spec: y(okName, okSource, okSink, "restartStrategy: {type: fixedDelay, maxBackoff: 5s}"),
		want: []string{`restartStrategy.maxBackoff: only applies to exponentialDelay`},
	}, {
		name: "unknown state backend",
		spec: y(okName, okSource, okSink, "state: {backend: rocksdb}"),
		want: []string{`state.backend: unknown state backend "rocksdb" (want memory or pebble)`},
	}, {
		name: "autoscaler out of range",
		spec: y(okName, okSource, okSink, "maxParallelism: 16",
			"autoscaler:",
			"  enabled: yes",
			"  targetUtilization: 1.5",
			"  stabilization: 10ms",
			"  maxScaleUpFactor: 0.5",
			"  maxParallelism: 32",
			"  speed: 3"),
		want: []string{
			`line 6: autoscaler.enabled: must be true or false, got "yes"`,
			`line 7: autoscaler.targetUtilization: must be a number above 0 and at most 1, got "1.5"`,
			`line 8: autoscaler.stabilization: must be a duration >= 1s such as 10s or 1m30s, got "10ms"`,
			`line 9: autoscaler.maxScaleUpFactor: must be a number >= 1, got "0.5"`,
			`line 10: autoscaler.maxParallelism: 32 is above the job's maxParallelism 16 (its key groups)`,
			`line 11: autoscaler.speed: unknown field (known fields: enabled, minParallelism, maxParallelism, targetUtilization, stabilization, cooldown, maxScaleUpFactor, maxScaleDownFactor, catchUp, interval, maxLag, maxBacklog, schedule)`,
		},
	}, {
		name: "bad rate schedules",
		spec: y(okName, "sink: {type: stdout, uid: out, inputs: [a, b, c]}",
			"sources:",
			"  - {type: generator, uid: a, rate: [{for: 30s, rate: 100}, {for: soon, rate: 5}, {rate: 0}, {for: 1s, rate: -1}]}",
			"  - {type: generator, uid: b, rate: {for: 1s}}",
			"  - {type: file, uid: c, path: /in, rate: [{for: 1s, rate: 5}]}"),
		want: []string{
			`line 4: sources[0].rate[1].for: must be a duration >= 1ms such as 10s or 1m30s, got "soon"`,
			`line 4: sources[0].rate[2]: a step needs for (a duration) and rate (records per second), as in {for: 30s, rate: 20000}`,
			`line 4: sources[0].rate[3].rate: must be a number > 0, got "-1"`,
			`line 5: sources[1].rate: must be a single value, got a mapping`,
			`line 6: sources[2].rate: this source takes a number of records per second; a rate schedule applies to the generator and nexmark sources`,
		},
	}, {
		name: "autoscaler min above max",
		spec: y(okName, okSource, okSink, "autoscaler: {enabled: true, minParallelism: 4, maxParallelism: 2}"),
		want: []string{`line 4: autoscaler.minParallelism: 4 is above maxParallelism 2`},
	}, {
		name: "checkpoints without interval",
		spec: y(okName, okSource, okSink, "checkpoints: {timeout: 10}"),
		want: []string{
			`checkpoints.interval: required (a duration such as 10s)`,
			`checkpoints.timeout: must be a duration >= 10ms such as 10s or 1m30s, got "10"`,
		},
	}, {
		name: "checkpoint limits",
		spec: y(okName, okSource, okSink,
			"checkpoints:",
			"  interval: 1ms",
			"  minPause: -1s",
			"  maxConcurrent: 0",
			"  retain: 0"),
		want: []string{
			`line 5: checkpoints.interval: must be a duration >= 10ms such as 10s or 1m30s, got "1ms"`,
			`line 6: checkpoints.minPause: must be a duration >= 0s such as 10s or 1m30s, got "-1s"`,
			`line 7: checkpoints.maxConcurrent: must be an integer >= 1, got "0"`,
			`line 8: checkpoints.retain: must be an integer >= 1, got "0"`,
		},
	}, {
		name: "problems of every phase sorted by line",
		spec: y(okName,
			"source:",
			"  type: file",
			"  uid: in",
			"  path: ${input}",
			"  rate: fast",
			"  colour: blue",
			okSink),
		set: map[string]string{"inptu": "x"},
		want: []string{
			`line 5: source.path: parameter "input" has no value: pass --set input=VALUE or give it a default under params`,
			`line 6: source.rate: must be a number >= 0, got "fast"`,
			`line 7: source.colour: unknown field`,
			`--set inptu: unknown parameter: the spec neither uses ${inptu} nor declares it under params`,
		},
	}, {
		name: "YAML syntax error",
		spec: y(okName, "source: {type: file", okSink),
		want: []string{`yaml: line 1: did not find expected ',' or '}'`},
	}, {
		name: "empty spec",
		spec: "# nothing here\n",
		want: []string{`the job spec is empty`},
	}, {
		name: "spec not a mapping",
		spec: y("- name: j"),
		want: []string{`line 1: a job spec must be a mapping of fields, got a list`},
	}, {
		name: "two documents",
		spec: y(okName, okSource, okSink, "---", okName),
		want: []string{`a job spec is a single YAML document`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.spec), "/specs", tt.set)
			if err == nil {
				t.Fatalf("no error, want:\n%s", strings.Join(tt.want, "\n"))
			}
			assertLines(t, err, tt.want)
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Errorf("error is no *FieldError: %#v", err)
			}
		})
	}
}

// assertLines checks that err has one line per fragment in want, each
// containing its fragment.
func assertLines(t *testing.T, err error, want []string) {
	t.Helper()
	got := strings.Split(err.Error(), "\n")
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.Contains(got[i], want[i])
	}
	if !ok {
		t.Errorf("error:\n%s\nwant lines containing:\n%s", err, strings.Join(want, "\n"))
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	path := testdataDir(t) + "/wordcount.yaml"
	_, err := Load(path, map[string]string{"input": "in.txt"})
	want := path + `:30: sink.path: parameter "output" has no value`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

func TestLoadReportsAMissingFile(t *testing.T) {
	_, err := Load("testdata/nope.yaml", nil)
	if err == nil || !strings.Contains(err.Error(), "read job spec: open testdata/nope.yaml") {
		t.Fatalf("error = %v", err)
	}
}
