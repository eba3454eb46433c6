package jobspec

import (
	"strconv"
	"strings"
	"testing"
)

// functionsSpec names a function of every kind, each on a line of its own.
const functionsSpec = `name: kinds
modules: {m: m.wasm}
source: {type: generator, uid: gen, count: 1}
operators:
  - {type: map, uid: a, module: m, function: upper}
  - {type: filter, uid: b, module: m, function: even}
  - {type: flatMap, uid: c, module: m, function: split}
  - type: keyBy
    uid: d
    key: function
    module: m
    function: word
  - {type: process, uid: e, module: m, function: count}
  - type: window
    uid: f
    window: {type: tumbling, size: 1s}
    module: m
    aggregate: sum
  - type: window
    uid: g
    window: {type: tumbling, size: 1s}
    module: m
    process: top
sink: {type: stdout, uid: out}
`

// TestCheckFunctions checks the functions a spec names against module
// function tables: every kind of operator with the kind it needs, a
// misspelt name with a suggestion, a function of the wrong kind, and a
// module without a table, which is not checked.
func TestCheckFunctions(t *testing.T) {
	job, err := Parse([]byte(functionsSpec), "/", nil)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, c := range job.Calls() {
		calls = append(calls, c.Path+"@"+itoa(c.Line)+"="+c.Function+":"+string(c.Kind))
	}
	want := "operators[0].function@5=upper:map operators[1].function@6=even:filter operators[2].function@7=split:flatMap " +
		"operators[3].function@12=word:keySelector operators[4].function@13=count:process " +
		"operators[5].aggregate@18=sum:aggregate operators[6].process@23=top:processWindow"
	if got := strings.Join(calls, " "); got != want {
		t.Fatalf("calls\n got %s\nwant %s", got, want)
	}
	all := map[string]FunctionKind{"upper": FunctionMap, "even": FunctionFilter, "split": FunctionFlatMap, "word": FunctionKeySelector,
		"count": FunctionProcess, "sum": FunctionAggregate, "top": FunctionProcessWindow}
	without := func(name string, extra map[string]FunctionKind) map[string]FunctionKind {
		m := map[string]FunctionKind{}
		for k, v := range all {
			if k != name {
				m[k] = v
			}
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name   string
		tables map[string]map[string]FunctionKind
		want   []string // substrings of the error, "" for none
	}{
		{"all there", map[string]map[string]FunctionKind{"m": all}, nil},
		{"no table", map[string]map[string]FunctionKind{}, nil},
		{"misspelt", map[string]map[string]FunctionKind{"m": without("upper", map[string]FunctionKind{"uper": FunctionMap, "lower": FunctionMap})},
			[]string{`jobs.yaml:5: operators[0].function: module "m" has no function "upper"; did you mean "uper"? (it has: uper, lower, `}},
		{"none that fits", map[string]map[string]FunctionKind{"m": without("top", nil)},
			[]string{`jobs.yaml:23: operators[6].process: module "m" has no function "top" (it has no window process function)`}},
		{"record kinds mix", map[string]map[string]FunctionKind{"m": without("", map[string]FunctionKind{"upper": FunctionProcess,
			"split": FunctionMap, "word": FunctionMap, "count": FunctionFlatMap})}, nil},
		{"record function in a window", map[string]map[string]FunctionKind{"m": without("", map[string]FunctionKind{"sum": FunctionMap})},
			[]string{`jobs.yaml:18: operators[5].aggregate: "sum" is a map function in module "m"; this operator needs an aggregate function`}},
		{"window function as a record function", map[string]map[string]FunctionKind{"m": without("", map[string]FunctionKind{"count": FunctionAggregate})},
			[]string{`jobs.yaml:13: operators[4].function: "count" is an aggregate function in module "m"; this operator needs a record function`}},
		{"two at once", map[string]map[string]FunctionKind{"m": without("even", map[string]FunctionKind{"sum": FunctionProcessWindow})},
			[]string{`jobs.yaml:6: operators[1].function: module "m" has no function "even" (it has: `,
				`jobs.yaml:18: operators[5].aggregate: "sum" is a processWindow function`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := job.CheckFunctions("jobs.yaml", tt.tables)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("CheckFunctions: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckFunctions passed, want %q", tt.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tt.want) {
				t.Fatalf("error %q, want %d lines", err, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("line %d: %q, want it to start with %q", i, lines[i], w)
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestCheckFunctionsCoProcess checks both functions of a coProcess, each at
// its own line, as record functions.
func TestCheckFunctionsCoProcess(t *testing.T) {
	const spec = `name: co
modules: {m: m.wasm}
sources:
  - {type: generator, uid: a, count: 1}
  - {type: generator, uid: b, count: 1}
operators:
  - {type: keyBy, uid: ka, key: value, input: a}
  - {type: keyBy, uid: kb, key: value, input: b}
  - type: coProcess
    uid: join
    inputs: [ka, kb]
    module: m
    functions:
      - onOrder
      - onPayment
sink: {type: stdout, uid: out}
`
	job, err := Parse([]byte(spec), "/", nil)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, c := range job.Calls() {
		calls = append(calls, c.Path+"@"+itoa(c.Line)+"="+c.Function+":"+string(c.Kind))
	}
	want := "operators[2].functions[0]@14=onOrder:process operators[2].functions[1]@15=onPayment:process"
	if got := strings.Join(calls, " "); got != want {
		t.Fatalf("calls\n got %s\nwant %s", got, want)
	}
	tests := []struct {
		name  string
		table map[string]FunctionKind
		want  string // the error, "" for none
	}{
		{"both there", map[string]FunctionKind{"onOrder": FunctionProcess, "onPayment": FunctionProcess}, ""},
		{"second missing", map[string]FunctionKind{"onOrder": FunctionProcess, "onPaymnt": FunctionProcess},
			`jobs.yaml:15: operators[2].functions[1]: module "m" has no function "onPayment"; did you mean "onPaymnt"? (it has: onPaymnt, onOrder)`},
		{"first a window function", map[string]FunctionKind{"onOrder": FunctionAggregate, "onPayment": FunctionProcess},
			`jobs.yaml:14: operators[2].functions[0]: "onOrder" is an aggregate function in module "m"; this operator needs a record function (map, filter, flatMap, process or keySelector)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := job.CheckFunctions("jobs.yaml", map[string]map[string]FunctionKind{"m": tt.table})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Fatalf("CheckFunctions\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestCheckFunctionsJoin checks a join's function, at its line, as a
// record function; a join without one calls nothing.
func TestCheckFunctionsJoin(t *testing.T) {
	const spec = `name: joins
modules: {m: m.wasm}
sources:
  - {type: generator, uid: a, count: 1}
  - {type: generator, uid: b, count: 1}
operators:
  - {type: keyBy, uid: ka, key: value, input: a}
  - {type: keyBy, uid: kb, key: value, input: b}
  - {type: intervalJoin, uid: plain, inputs: [ka, kb], between: [0s, 1s]}
  - type: windowJoin
    uid: fn
    inputs: [ka, kb]
    window: {type: tumbling, size: 1s}
    module: m
    function: pair
sinks:
  - {type: stdout, uid: out, inputs: [plain, fn]}
`
	job, err := Parse([]byte(spec), "/", nil)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, c := range job.Calls() {
		calls = append(calls, c.Path+"@"+itoa(c.Line)+"="+c.Function+":"+string(c.Kind))
	}
	if got, want := strings.Join(calls, " "), "operators[3].function@15=pair:flatMap"; got != want {
		t.Fatalf("calls\n got %s\nwant %s", got, want)
	}
	err = job.CheckFunctions("jobs.yaml", map[string]map[string]FunctionKind{"m": {"pairs": FunctionFlatMap}})
	want := `jobs.yaml:15: operators[3].function: module "m" has no function "pair"; did you mean "pairs"? (it has: pairs)`
	if err == nil || err.Error() != want {
		t.Fatalf("CheckFunctions\n got %v\nwant %q", err, want)
	}
}
