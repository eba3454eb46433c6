// Command conformance holds the conformance suite's operators written with
// the Go SDK (udfs/conformance/README.md). The other SDKs' versions must
// produce byte-identical transcripts.
package main

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	floe "github.com/floe-stream/floe/sdk/go"
	"github.com/floe-stream/floe/udfs/internal/nexmark"
)

func init() {
	floe.Map("upper", upper)
	floe.Filter("evens", func(rec []byte) (bool, error) { return len(rec)%2 == 0, nil })
	floe.FlatMap("split", split)
	floe.Map("tag", tag)
	floe.Process("count", count)
	floe.Process("distinct", distinct)
	floe.Process("hold", hold)
	floe.Process("cell", cell)
	floe.Process("session", session)
	floe.OnTimer("session", sessionTimer)
	floe.Process("left", left)
	floe.Process("right", right)
	floe.OnTimer("left", unmatched)
	floe.Process("watch", watch)
	floe.Process("rule", rule)
	floe.FlatMap("buffer", buffer)
	floe.MapAppend("q1", nexmark.Q1)
	floe.Process("keyedcount", keyedCount)
	floe.SQLFunction("price_band", priceBand)
	floe.SQLFunction("pick", func(a []floe.SQLValue) (floe.SQLValue, error) {
		switch {
		case a[0].IsNull():
			return floe.SQLValue{}, nil
		case a[0].Bool:
			return a[1], nil
		}
		return a[2], nil
	})
	floe.SQLAggregate("spread", floe.JSON[span](), floe.SQLAggregateFunc[span]{
		Create: func() span { return span{} },
		Add: func(s span, a []floe.SQLValue) (span, error) {
			if a[0].IsNull() {
				return s, nil
			}
			return mergeSpans(s, span{1, a[0].Int, a[0].Int}), nil
		},
		Merge: mergeSpans,
		Result: func(s span) (floe.SQLValue, error) {
			if s.N == 0 {
				return floe.SQLValue{}, nil
			}
			return floe.SQLInt(s.Max - s.Min), nil
		},
	})
	floe.SQLTableFunction("series", series)
	floe.OnOpen(open)
}

var params floe.Params

func open(p floe.Params) error {
	params = p
	if p["floe.function"] == "buffer" {
		me := "subtask-" + p["floe.subtask"]
		for _, m := range members.Get() {
			if m == me {
				return nil
			}
		}
		members.Append(me)
	}
	return nil
}

func upper(rec []byte) ([]byte, error) {
	if string(rec) == "poison" {
		return nil, errors.New("poison record")
	}
	out := bytes.Clone(rec)
	for i, c := range out {
		if 'a' <= c && c <= 'z' {
			out[i] = c - 'a' + 'A'
		}
	}
	return out, nil
}

func split(rec []byte, out floe.Emitter) error {
	for _, f := range bytes.Split(rec, []byte(",")) {
		switch {
		case len(f) == 0:
		case f[0] == '#':
			out.EmitTo("comments", f[1:])
		case digits(f):
			out.EmitTo("numbers", f)
		default:
			out.Emit(f)
		}
	}
	return nil
}

func digits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func tag(rec []byte) ([]byte, error) {
	g, ok := params["greeting"]
	if !ok {
		g = "hello"
	}
	return []byte(g + "/" + params["floe.subtask"] + "/" + params["floe.parallelism"] + "/" + string(rec)), nil
}

var counts = floe.NewValueState("counts", floe.Int64, floe.Queryable())

func count(ctx *floe.Context, _ []byte, out floe.Emitter) error {
	n, _ := counts.Get(ctx)
	n++
	counts.Put(ctx, n)
	out.Emit(strconv.AppendInt(append(bytes.Clone(ctx.Key()), ','), n, 10))
	return nil
}

var seen = floe.NewMapState("seen", floe.String, floe.Int64)

func distinct(ctx *floe.Context, rec []byte, out floe.Emitter) error {
	key := string(ctx.Key())
	switch string(rec) {
	case "?":
		// All walks the map in ascending map key order, as the host keeps
		// it: no sorting here, so this case checks the order too.
		var parts []string
		for k, n := range seen.All(ctx) {
			parts = append(parts, k+"="+strconv.FormatInt(n, 10))
		}
		out.Emit([]byte(key + ":" + strings.Join(parts, ";")))
	case "!":
		seen.Clear(ctx)
		out.Emit([]byte(key + "!"))
	default:
		n, ok := seen.Get(ctx, string(rec))
		seen.Put(ctx, string(rec), n+1)
		if !ok {
			out.Emit([]byte(key + "+" + string(rec)))
		}
	}
	return nil
}

var (
	held  = floe.NewValueState("held", floe.Bytes)
	prior = floe.NewMapState("prior", floe.Bytes, floe.Bytes)
)

// hold reads two states and uses the first read after the second.
func hold(ctx *floe.Context, v []byte, out floe.Emitter) error {
	p, ok := held.Get(ctx)
	if !ok {
		p = []byte("-")
	}
	var entries [][]byte
	for k, pv := range prior.All(ctx) {
		entries = append(entries, append(append(bytes.Clone(k), '='), pv...))
	}
	line := append(append(bytes.Clone(ctx.Key()), ':'), p...)
	line = append(append(line, ':'), bytes.Join(entries, []byte(";"))...)
	out.Emit(line)
	held.Put(ctx, v)
	prior.Put(ctx, v, p)
	return nil
}

// cellRaw and cellInt are one state, "cell", seen as bytes and as int64.
var (
	cellRaw = floe.NewValueState("cell", floe.Bytes)
	cellInt = floe.NewValueState("cell", floe.Int64)
)

// cell tells an absent int64 value from a malformed one.
func cell(ctx *floe.Context, v []byte, out floe.Emitter) error {
	switch cmd, arg, _ := bytes.Cut(v, []byte(" ")); string(cmd) {
	case "set":
		cellRaw.Put(ctx, arg)
	case "put":
		n, err := strconv.ParseInt(string(arg), 10, 64)
		if err != nil {
			return err
		}
		cellInt.Put(ctx, n)
	case "get":
		line := append(bytes.Clone(ctx.Key()), ':')
		if n, ok := cellInt.Get(ctx); ok {
			line = strconv.AppendInt(line, n, 10)
		} else {
			line = append(line, "absent"...)
		}
		out.Emit(line)
	}
	return nil
}

var (
	last = floe.NewValueState("last", floe.Int64)
	n    = floe.NewValueState("n", floe.Int64)
)

func session(ctx *floe.Context, rec []byte, out floe.Emitter) error {
	key := string(ctx.Key())
	if string(rec) == "wm?" {
		out.Emit([]byte(key + ",wm," + strconv.FormatInt(ctx.Watermark(), 10)))
		return nil
	}
	ts := ctx.Timestamp()
	if ts == floe.NoTimestamp {
		return errors.New("record without timestamp")
	}
	gap, err := ctx.Params().Int("gap", 10)
	if err != nil {
		return err
	}
	l, ok := last.Get(ctx)
	if ok {
		ctx.DeleteEventTimer(l + int64(gap))
		l = max(l, ts)
	} else {
		l = ts
	}
	c, _ := n.Get(ctx)
	c++
	last.Put(ctx, l)
	n.Put(ctx, c)
	ctx.RegisterEventTimer(l + int64(gap))
	if c == 1 {
		idle, err := ctx.Params().Int("idle", 1000)
		if err != nil {
			return err
		}
		ctx.RegisterProcessingTimer(ctx.ProcessingTime() + int64(idle))
	}
	return nil
}

func sessionTimer(ctx *floe.Context, t floe.Timer, out floe.Emitter) error {
	key := string(ctx.Key())
	c, ok := n.Get(ctx)
	if t.Domain == floe.EventTime {
		l, _ := last.Get(ctx)
		out.Emit([]byte(key + ",session," + strconv.FormatInt(c, 10) + "," + strconv.FormatInt(l, 10)))
		last.Delete(ctx)
		n.Delete(ctx)
		return nil
	}
	if ok {
		out.Emit([]byte(key + ",idle," + strconv.FormatInt(c, 10) + "," + strconv.FormatInt(t.Timestamp, 10)))
	}
	return nil
}

// pending holds a key's unmatched record of left ("L" + value) or right
// ("R" + value), for the two-input operator left/right.
var pending = floe.NewValueState("pending", floe.Bytes)

// left and right are the two functions of a two-input operator: a record
// of one input matches the other input's pending record of its key.
func left(ctx *floe.Context, rec []byte, out floe.Emitter) error {
	return match(ctx, 'L', 'R', rec, out)
}

func right(ctx *floe.Context, rec []byte, out floe.Emitter) error {
	return match(ctx, 'R', 'L', rec, out)
}

func match(ctx *floe.Context, mine, other byte, v []byte, out floe.Emitter) error {
	p, ok := pending.Get(ctx)
	if ok && len(p) > 0 && p[0] == other {
		l, r := v, p[1:]
		if mine == 'R' {
			l, r = r, v
		}
		out.Emit([]byte(string(ctx.Key()) + "," + string(l) + "," + string(r)))
		pending.Delete(ctx)
		return nil
	}
	pending.Put(ctx, append([]byte{mine}, v...))
	ctx.RegisterEventTimer(100)
	return nil
}

// unmatched is the timer handler of left/right, whichever set the timer.
func unmatched(ctx *floe.Context, _ floe.Timer, out floe.Emitter) error {
	if p, ok := pending.Get(ctx); ok {
		out.Emit([]byte(string(ctx.Key()) + ",unmatched," + string(p)))
		pending.Delete(ctx)
	}
	return nil
}

// rules is the broadcast state of watch/rule: rule name to pattern; hits
// counts each key's watched records.
var (
	rules = floe.NewBroadcastState("rules", floe.String, floe.String)
	hits  = floe.NewValueState("hits", floe.Int64)
)

// watch is the keyed function of an operator with a broadcast input: it
// names the rules whose pattern its record contains. The value "write"
// tries to write the broadcast state, which only rule may.
func watch(ctx *floe.Context, rec []byte, out floe.Emitter) error {
	if string(rec) == "write" {
		rules.Put("x", "y")
		return nil
	}
	n, _ := hits.Get(ctx)
	n++
	hits.Put(ctx, n)
	var names []string
	for name, pattern := range rules.All() {
		if strings.Contains(string(rec), pattern) {
			names = append(names, name)
		}
	}
	out.Emit([]byte(string(ctx.Key()) + "#" + strconv.FormatInt(n, 10) + ":" + string(rec) + ":" + strings.Join(names, "+")))
	return nil
}

// rule is the broadcast function: it keeps the rules. The value "count"
// tries to use keyed state, which its unkeyed records cannot.
func rule(ctx *floe.Context, rec []byte, out floe.Emitter) error {
	v := string(rec)
	switch {
	case v == "count":
		hits.Get(ctx)
	case v == "?":
		var es []string
		for name, pattern := range rules.All() {
			es = append(es, name+"="+pattern)
		}
		out.Emit([]byte("rules:" + strings.Join(es, ";")))
	case v == "!":
		rules.Clear()
		out.Emit([]byte("!"))
	case strings.HasPrefix(v, "-"):
		rules.Delete(v[1:])
		out.Emit(rec)
	default:
		name, pattern, _ := strings.Cut(v, "=")
		if p, ok := rules.Get(name); ok {
			out.Emit([]byte("~" + name + "=" + p))
		}
		rules.Put(name, pattern)
		out.Emit([]byte("+" + name))
	}
	return nil
}

var (
	buf     = floe.NewOperatorList("buffer", floe.String, floe.EvenSplit)
	members = floe.NewOperatorList("members", floe.String, floe.Union)
)

func buffer(rec []byte, out floe.Emitter) error {
	if string(rec) == "?" {
		out.Emit([]byte("buffer=" + strings.Join(buf.Get(), "+") + ";members=" + strings.Join(members.Get(), "+")))
		return nil
	}
	size, err := params.Int("size", 3)
	if err != nil {
		return err
	}
	buf.Append(string(rec))
	if b := buf.Get(); len(b) >= size {
		out.Emit([]byte(strings.Join(b, "+")))
		buf.Clear()
	}
	return nil
}

var kcount = floe.NewValueState("count", floe.Int64)

func keyedCount(ctx *floe.Context, _ []byte, out floe.Emitter) error {
	c, _ := kcount.Get(ctx)
	c++
	kcount.Put(ctx, c)
	out.Emit(strconv.AppendInt(append(bytes.Clone(ctx.Key()), ','), c, 10))
	return nil
}

func main() {}

// priceBand is the SQL function price_band(price BIGINT) RETURNS VARCHAR.
func priceBand(a []floe.SQLValue) (floe.SQLValue, error) {
	switch {
	case a[0].IsNull():
		return floe.SQLValue{}, nil
	case a[0].Int < 100:
		return floe.SQLString("low"), nil
	case a[0].Int < 700:
		return floe.SQLString("mid"), nil
	}
	return floe.SQLString("high"), nil
}

// span is spread's accumulator: the count, smallest and largest of the
// non-NULL values.
type span struct{ N, Min, Max int64 }

func mergeSpans(a, b span) span {
	switch {
	case a.N == 0:
		return b
	case b.N == 0:
		return a
	}
	return span{a.N + b.N, min(a.Min, b.Min), max(a.Max, b.Max)}
}

// series is the SQL table function series(n BIGINT, s VARCHAR) RETURNS
// TABLE (i BIGINT, tag VARCHAR).
func series(a []floe.SQLValue) ([][]floe.SQLValue, error) {
	if a[0].IsNull() || a[0].Int <= 0 {
		return nil, nil
	}
	var rows [][]floe.SQLValue
	for i := int64(1); i <= a[0].Int%5; i++ {
		tag := floe.SQLValue{}
		if !a[1].IsNull() {
			tag = floe.SQLString(a[1].Str + "#" + strconv.FormatInt(i, 10))
		}
		rows = append(rows, []floe.SQLValue{floe.SQLInt(i), tag})
	}
	return rows, nil
}
