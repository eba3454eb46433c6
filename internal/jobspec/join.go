package jobspec

import (
	"time"

	"github.com/floe-stream/floe/internal/sqlprog"
)

// Join configures an intervalJoin or a windowJoin (docs/jobs.md, "Joins").
// Both read two keyed inputs, left (the first) and right (the second), and
// make each joined pair one record: by default the left value, Separator
// and the right value; with a Wasm join function (Module and Function of
// the Operator), whatever that flatMap function emits for the pair's
// framed record (sdk/ABI.md, "Join functions").
type Join struct {
	// Lower and Upper bound an interval join: a right record r joins a
	// left record l when l.ts + Lower <= r.ts <= l.ts + Upper. Both are 0
	// for a window join.
	Lower, Upper time.Duration
	// Kind is inner or leftOuter for a window join, "" for an interval
	// join.
	Kind JoinKind
	// Separator goes between the left and the right value of the built-in
	// concatenation (default ",").
	Separator string
	// LateOutput names the side output of records too late to join; ""
	// drops them (and counts them).
	LateOutput string
	// SQL, set by the SQL compiler (sql: in the spec), makes each pair
	// the joined row of two SQL rows instead of a concatenation; nil
	// otherwise.
	SQL *sqlprog.JoinRows
}

// JoinKind is how a window join pairs the rows of a window.
type JoinKind string

// The window join kinds.
const (
	JoinInner     JoinKind = "inner"
	JoinLeftOuter JoinKind = "leftOuter"
)

// DefaultJoinSeparator is the Separator of a join that names none.
const DefaultJoinSeparator = ","

// intervalJoin fills in an intervalJoin: between: [LOWER, UPPER].
func (b *builder) intervalJoin(path string, r *rawOperator, op *Operator) {
	j := b.joinCommon(path, r, op)
	bp := path + ".between"
	switch {
	case r.Between == nil:
		b.p.reject(bp, "required: the bounds of the right record's time relative to the left one's, as [-5s, +10s]")
	case len(r.Between) != 2:
		b.p.reject(bp, "needs two durations, [lower, upper] such as [-5s, +10s], got %d", len(r.Between))
	default:
		var ok [2]bool
		j.Lower, ok[0] = b.signedDuration(itemPath(bp, 0), r.Between[0])
		j.Upper, ok[1] = b.signedDuration(itemPath(bp, 1), r.Between[1])
		if ok[0] && ok[1] && j.Lower > j.Upper {
			b.p.reject(bp, "the lower bound (%v) is above the upper bound (%v)", j.Lower, j.Upper)
		}
	}
	b.p.only(path+".join", r.Join, "a windowJoin (inner or leftOuter)")
	if r.Window != nil {
		b.p.add(path+".window", "only applies to a window or a windowJoin (an intervalJoin has between:)")
	}
	b.p.only(path+".allowedLateness", r.AllowedLateness, "a window or a windowJoin (an intervalJoin drops what is behind the watermark)")
}

// windowJoin fills in a windowJoin: window:, join:, allowedLateness:.
func (b *builder) windowJoin(path string, r *rawOperator, op *Operator) {
	j := b.joinCommon(path, r, op)
	j.Kind = JoinKind(b.p.choice(path+".join", r.Join, "join kind", string(JoinInner), string(JoinInner), string(JoinLeftOuter)))
	op.Window = b.windowShape(path, r)
	op.Window.AllowedLateness = b.p.duration(path+".allowedLateness", r.AllowedLateness, 0, 0)
	op.Window.LateOutput = j.LateOutput
	if r.Between != nil {
		b.p.reject(path+".between", "only applies to an intervalJoin")
	}
}

// joinCommon fills in what both joins have: an optional Wasm join
// function, the separator of the built-in concatenation and the late
// output; it rejects the fields of windows that joins do not have.
func (b *builder) joinCommon(path string, r *rawOperator, op *Operator) *Join {
	j := &Join{Separator: DefaultJoinSeparator}
	op.Join = j
	b.p.only(path+".key", r.Key, "keyBy")
	if r.Function.set || r.Module.set {
		op.Module, op.Function = b.function(path, r)
		b.called(path+".function", op.Module, op.Function, FunctionFlatMap)
		b.p.only(path+".separator", r.Separator, "a join without a function (the built-in concatenation)")
	} else if r.Separator.set {
		j.Separator = r.Separator.value
	}
	if r.SQL.set {
		b.joinSQL(path, r, j)
	}
	if r.LateOutput.set {
		j.LateOutput = r.LateOutput.value
	}
	b.p.only(path+".time", r.Time, "a window (a join runs on event time)")
	b.p.only(path+".aggregate", r.Aggregate, "a window operator")
	b.p.only(path+".process", r.Process, "a window operator")
	return j
}

// signedDuration returns the duration at path, which may be negative and
// may have a sign: -5s, +10s, 0s.
func (b *builder) signedDuration(path string, s Scalar) (time.Duration, bool) {
	v, ok := b.p.text(path, s)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(v)
	if err != nil || d%time.Millisecond != 0 {
		b.p.reject(path, "must be a duration in whole milliseconds, signed or not, such as -5s or +10s, got %q", v)
		return 0, false
	}
	return d, true
}

// notJoin rejects the fields of joins on other operators.
func (b *builder) notJoin(path string, r *rawOperator) {
	if r.Between != nil {
		b.p.reject(path+".between", "only applies to an intervalJoin")
	}
	b.p.only(path+".join", r.Join, "a windowJoin (inner or leftOuter)")
	b.p.only(path+".separator", r.Separator, "an intervalJoin or a windowJoin")
}

// article returns t with its indefinite article: "an intervalJoin".
func article(t OperatorType) string {
	if t == OperatorIntervalJoin {
		return "an " + string(t)
	}
	return "a " + string(t)
}

// joinSQL reads the sql: of a join the SQL compiler emitted: the shape of
// its joined rows, which replace the concatenation and any function.
func (b *builder) joinSQL(path string, r *rawOperator, j *Join) {
	b.p.only(path+".function", r.Function, "a join without sql: (a SQL join builds its rows itself)")
	b.p.only(path+".separator", r.Separator, "a join without sql: (a SQL join builds its rows itself)")
	text, ok := b.p.text(path+".sql", r.SQL)
	if !ok {
		return
	}
	rows, err := sqlprog.ParseJoinRows(text)
	if err != nil {
		b.p.reject(path+".sql", "%v", err)
		return
	}
	if rows.Outer != "" && r.Between == nil {
		b.p.reject(path+".sql", "outer: only an intervalJoin (a windowJoin's join: says leftOuter)")
		return
	}
	j.SQL = rows
}
