package jobspec

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// FunctionKind is what a Wasm function is for, as its module's function
// table says (sdk/ABI.md, "Function table") and as the operator that names
// it needs.
type FunctionKind string

// The function kinds. A window's aggregate must be an aggregate function
// and its process a window process function; every other operator takes a
// record function, of any of the other kinds: the host runs them all
// alike, one batch of records in, records out, and the SDKs draw the lines
// between them differently (a Rust process function is any record
// function; Rust and AssemblyScript have no separate key selector).
const (
	FunctionMap           FunctionKind = "map"
	FunctionFilter        FunctionKind = "filter"
	FunctionFlatMap       FunctionKind = "flatMap"
	FunctionProcess       FunctionKind = "process"
	FunctionKeySelector   FunctionKind = "keySelector"
	FunctionAggregate     FunctionKind = "aggregate"
	FunctionProcessWindow FunctionKind = "processWindow"
)

// Call is one place a spec names a Wasm function.
type Call struct {
	// Path is the field that names the function, e.g.
	// operators[2].function; Line is its line in the spec (0 if unknown).
	Path string
	Line int
	// Module and Function are what the field names.
	Module, Function string
	// Kind is the kind of function the operator needs.
	Kind FunctionKind
}

// called records that path names function of module, for an operator that
// needs kind.
func (b *builder) called(path, module, function string, kind FunctionKind) {
	if module == "" || function == "" {
		return // reported already
	}
	b.calls = append(b.calls, Call{Path: path, Line: b.p.lineOf(path), Module: module, Function: function, Kind: kind})
}

// Calls returns every Wasm function the job names, in spec order.
func (j *Job) Calls() []Call { return slices.Clone(j.calls) }

// CheckFunctions checks every function the job names against the
// function tables of its modules: tables maps a module's name to its
// functions and their kinds. A module missing from tables (one whose SDK
// lists no functions) is not checked; its functions are found when an
// operator opens them. The errors are FieldErrors with the spec's lines.
func (j *Job) CheckFunctions(file string, tables map[string]map[string]FunctionKind) error {
	p := newProblems(file)
	for _, c := range j.calls {
		fns, ok := tables[c.Module]
		if !ok {
			continue
		}
		kind, ok := fns[c.Function]
		switch {
		case !ok:
			p.at(c.Line, c.Path, "module %q has no function %q%s", c.Module, c.Function, suggest(c.Function, c.Kind, fns))
		case !fits(kind, c.Kind):
			p.at(c.Line, c.Path, "%q is a%s %s function in module %q; this operator needs %s", c.Function, an(string(kind)), kind, c.Module, wants(c.Kind))
		}
	}
	return p.err()
}

// fits reports whether a function of kind has can run where an operator
// needs kind want.
func fits(has, want FunctionKind) bool {
	windowed := func(k FunctionKind) bool { return k == FunctionAggregate || k == FunctionProcessWindow }
	if windowed(has) || windowed(want) {
		return has == want
	}
	return true
}

// wants says what an operator that needs kind takes.
func wants(kind FunctionKind) string {
	switch kind {
	case FunctionAggregate:
		return "an aggregate function"
	case FunctionProcessWindow:
		return "a window process function"
	}
	return "a record function (map, filter, flatMap, process or keySelector)"
}

func an(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "n"
	}
	return ""
}

// suggest names the functions a module has that fit, the closest spelling
// first.
func suggest(name string, kind FunctionKind, fns map[string]FunctionKind) string {
	var fit []string
	for _, f := range slices.Sorted(maps.Keys(fns)) {
		if fits(fns[f], kind) {
			fit = append(fit, f)
		}
	}
	if len(fit) == 0 {
		return fmt.Sprintf(" (it has no %s)", strings.TrimPrefix(strings.TrimPrefix(wants(kind), "an "), "a "))
	}
	slices.SortStableFunc(fit, func(a, b string) int { return editDistance(name, a) - editDistance(name, b) })
	if d := editDistance(name, fit[0]); d <= max(2, len(name)/3) {
		return fmt.Sprintf("; did you mean %q? (it has: %s)", fit[0], strings.Join(fit, ", "))
	}
	return fmt.Sprintf(" (it has: %s)", strings.Join(fit, ", "))
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
