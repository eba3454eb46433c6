package floe

import (
	"fmt"
	"strconv"
)

// Emitter receives an operator's output records. The bytes are copied before
// Emit returns, so a caller may reuse its buffer.
type Emitter interface {
	// Emit sends value to the main output with the input record's timestamp.
	Emit(value []byte)
	// EmitTo sends value to the named side output.
	EmitTo(output string, value []byte)
}

// Params are the job's parameters (the spec's params and --set values) and
// the host's floe.* entries, as given to the operator when it opens.
type Params map[string]string

// Int returns the parameter as an int, or def when it is absent.
func (p Params) Int(name string, def int) (int, error) {
	s, ok := p[name]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("parameter %s: %q is not an integer", name, s)
	}
	return n, nil
}

// kind is the shape of a registered function.
type kind int

const (
	kindMap kind = iota
	kindFilter
	kindFlatMap
	kindProcess
	kindKeySelector
	kindAggregate
	kindWindow
)

// function is one registered operator function; exactly one of the fields
// matching its kind is set.
type function struct {
	kind  kind
	mapFn func(rec []byte) ([]byte, error)
	// appendFn is set, with mapFn, for a map registered by MapAppend.
	appendFn func(dst, rec []byte) ([]byte, error)
	filter   func(rec []byte) (bool, error)
	flatMap  func(rec []byte, out Emitter) error
	process  func(ctx *Context, rec []byte, out Emitter) error
	agg      *aggregate
	window   func(key []byte, w Window, recs []Record, out Emitter) error
}

// registry holds what init functions registered; the module's operator
// picks one at open by the floe.function parameter.
var registry = map[string]function{}

func register(name string, f function) {
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("floe: function %q registered twice", name))
	}
	registry[name] = f
}

// Map registers a function that turns each record into exactly one record.
func Map(name string, fn func(rec []byte) ([]byte, error)) {
	register(name, function{kind: kindMap, mapFn: fn})
}

// MapAppend registers a map function in the append form of strconv's
// Append functions: it appends the record's one output record to dst and
// returns the extended slice. dst is the operator's output buffer, so an
// output written in place is not copied again; a result elsewhere (dst
// outgrown, or another slice) is copied, as Map's is.
//
// NB: in Wasm this saves a call and a copy per record over Map, which is
// worth a few percent of a small function's time.
func MapAppend(name string, fn func(dst, rec []byte) ([]byte, error)) {
	register(name, function{kind: kindMap, appendFn: fn, mapFn: func(rec []byte) ([]byte, error) {
		return fn(nil, rec)
	}})
}

// Filter registers a function that keeps the records for which it returns
// true.
func Filter(name string, fn func(rec []byte) (bool, error)) {
	register(name, function{kind: kindFilter, filter: fn})
}

// FlatMap registers a function that emits zero or more records per record.
func FlatMap(name string, fn func(rec []byte, out Emitter) error) {
	register(name, function{kind: kindFlatMap, flatMap: fn})
}

// Process registers a keyed process function: it runs after a keyBy, and the
// state handles it uses are scoped to the key of the record in ctx.
func Process(name string, fn func(ctx *Context, rec []byte, out Emitter) error) {
	register(name, function{kind: kindProcess, process: fn})
}

// KeySelector registers a function that extracts a record's key, for a job
// spec's keyBy with key: function.
func KeySelector(name string, fn func(rec []byte) ([]byte, error)) {
	register(name, function{kind: kindKeySelector, mapFn: fn})
}

var (
	openHooks  []func(Params) error
	closeHooks []func() error
)

// OnOpen registers fn to run when an operator of this module opens, with
// the job's parameters. An error fails the task.
func OnOpen(fn func(Params) error) { openHooks = append(openHooks, fn) }

// OnClose registers fn to run when an operator of this module closes.
func OnClose(fn func() error) { closeHooks = append(closeHooks, fn) }

// Context is the scope of one record in a keyed process function.
type Context struct {
	rec    int32
	key    []byte
	ts     int64
	params Params
}

// Key returns the key of the current record. It is valid during the call.
func (c *Context) Key() []byte { return c.key }

// Timestamp returns the event time of the current record in ms since the
// epoch, or NoTimestamp.
func (c *Context) Timestamp() int64 { return c.ts }

// Params returns the operator's parameters.
func (c *Context) Params() Params { return c.params }
