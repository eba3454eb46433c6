// Package eventtime is the pure core of Floe's event time: reading a
// record's timestamp from its value, generating a source's watermarks with
// bounded out-of-orderness (Generator, Splits), pacing what a source sends
// downstream and marking it idle (Pacer), and combining the watermarks of a
// task's inputs (Tracker). None of it reads a clock: the task runtime
// (host/task) passes the time in and moves the watermarks through the job.
//
// A watermark W says that no record with a timestamp <= W follows (Flink's
// convention): an event-time timer at t fires once the watermark reaches t.
// Watermarks only move forward.
package eventtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/jobspec"
)

// Min is the watermark before any event time is known; Max the watermark of
// an input that has ended, after which every event-time timer fires.
const (
	Min = record.NoTimestamp
	Max = math.MaxInt64
)

// Extractor reads a record's event time from its value.
type Extractor struct {
	field  jobspec.TimestampField
	format string
	path   []string
}

// NewExtractor returns the extractor for a source's settings.
func NewExtractor(et *jobspec.EventTime) *Extractor {
	x := &Extractor{field: et.Field, format: et.Format}
	if et.Field.JSON != "" {
		x.path = strings.Split(et.Field.JSON, ".")
	}
	return x
}

// Timestamp returns the event time of value in ms since the epoch. The error
// names the field and quotes what it found.
func (x *Extractor) Timestamp(value []byte) (int64, error) {
	var text []byte
	switch {
	case x.field.CSV >= 0:
		f, ok := record.CSVField(value, x.field.CSV)
		if !ok {
			return 0, fmt.Errorf("timestamp field %s: the record has fewer fields", x.field)
		}
		text = f
	case x.path != nil:
		f, err := jsonField(value, x.path)
		if err != nil {
			return 0, fmt.Errorf("timestamp field %s: %w", x.field, err)
		}
		text = f
	default:
		return 0, fmt.Errorf("no timestamp field")
	}
	ts, err := parse(string(bytes.TrimSpace(text)), x.format)
	if err != nil {
		return 0, fmt.Errorf("timestamp field %s: %w", x.field, err)
	}
	return ts, nil
}

func jsonField(v []byte, path []string) ([]byte, error) {
	var cur any
	if err := json.Unmarshal(v, &cur); err != nil {
		return nil, fmt.Errorf("the record is not JSON: %v", err)
	}
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("no object at %q", p)
		}
		if cur, ok = m[p]; !ok {
			return nil, fmt.Errorf("no member %q", p)
		}
	}
	switch t := cur.(type) {
	case string:
		return []byte(t), nil
	case float64:
		return strconv.AppendFloat(nil, t, 'f', -1, 64), nil
	}
	return nil, fmt.Errorf("the value is %T, not a string or number", cur)
}

func parse(s, format string) (int64, error) {
	switch format {
	case "unix-ms", "unix-s":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not an integer (%s)", s, format)
		}
		if format == "unix-s" {
			n *= 1000
		}
		return n, nil
	case "rfc3339":
		format = time.RFC3339Nano
	}
	t, err := time.Parse(format, s)
	if err != nil {
		return 0, fmt.Errorf("%q does not match the format %q", s, format)
	}
	return t.UnixMilli(), nil
}

// Generator computes a source subtask's watermark with bounded
// out-of-orderness: the newest timestamp seen, minus the bound, minus 1 ms
// (a record exactly the bound late is still on time).
type Generator struct {
	bound int64
	max   int64
}

// NewGenerator returns a generator allowing records up to bound late.
func NewGenerator(bound time.Duration) *Generator {
	return &Generator{bound: bound.Milliseconds(), max: Min}
}

// Observe notes a record's timestamp.
func (g *Generator) Observe(ts int64) {
	if ts > g.max {
		g.max = ts
	}
}

// Current returns the watermark, Min before the first record.
func (g *Generator) Current() int64 {
	if g.max == Min {
		return Min
	}
	return g.max - g.bound - 1
}

// Tracker combines the watermarks of a task's inputs: its watermark is the
// minimum over the inputs that are neither idle nor ended, and never moves
// back. When every input has ended it is Max. When every input is idle or
// ended, it is the minimum over the idle ones of the watermark each sent
// last: an idle input's last watermark still holds, and without this a
// task whose active inputs all ended (a branch of a graph that ended,
// beside an idle one) would stay behind what its idle inputs promised
// until one of them woke.
type Tracker struct {
	marks   []int64
	idle    []bool
	ended   []bool
	current int64
}

// NewTracker tracks n inputs, all at Min.
func NewTracker(n int) *Tracker {
	t := &Tracker{marks: make([]int64, n), idle: make([]bool, n), ended: make([]bool, n), current: Min}
	for i := range t.marks {
		t.marks[i] = Min
	}
	return t
}

// Current returns the combined watermark.
func (t *Tracker) Current() int64 { return t.current }

// Rewire replaces the tracked inputs with n new ones, all at Min, as for a
// task kept running across a partial rescale that reads new channels. The
// combined watermark stays where it is: it promised downstream that no
// record at or below it follows, and the task's operators have fired
// their timers up to it, so it does not go back to what the new channels
// say at first; it advances again once every new input has passed it.
func (t *Tracker) Rewire(n int) {
	cur := t.current
	*t = *NewTracker(n)
	t.current = cur
}

// Watermark records input from's watermark (idle: the input is idle) and
// returns the combined watermark and whether it advanced.
func (t *Tracker) Watermark(from int, ts int64, idle bool) (int64, bool) {
	if ts > t.marks[from] {
		t.marks[from] = ts
	}
	t.idle[from] = idle
	return t.advance()
}

// Active records that input from sent records: it is no longer idle.
func (t *Tracker) Active(from int) { t.idle[from] = false }

// End records that input from has ended.
func (t *Tracker) End(from int) (int64, bool) {
	t.ended[from] = true
	return t.advance()
}

func (t *Tracker) advance() (int64, bool) {
	lowest, any := int64(Max), false
	for i, m := range t.marks {
		if t.ended[i] || t.idle[i] {
			continue
		}
		any = true
		lowest = min(lowest, m)
	}
	if !any {
		// Every input is idle or ended: the lowest last watermark of the
		// idle ones, Max once every input has ended.
		for i, m := range t.marks {
			if !t.ended[i] {
				lowest = min(lowest, m)
			}
		}
	}
	if lowest > t.current {
		t.current = lowest
		return lowest, true
	}
	return t.current, false
}

// Splits computes the watermark of a source subtask that reads several
// splits advancing in event time on their own, such as Kafka partitions:
// each split's watermark is bounded out-of-orderness over its own records,
// and the subtask's is the minimum over the splits that are not idle. A
// split that has delivered no record yet does not count; one without a
// record for the idle timeout stops counting until its next record.
type Splits struct {
	bound, idleFor int64 // ms
	max, last      []int64
}

// NewSplits returns per-split watermarks allowing records up to bound late,
// with splits idle after idleFor without records (0: never).
func NewSplits(bound, idleFor time.Duration) *Splits {
	return &Splits{bound: bound.Milliseconds(), idleFor: idleFor.Milliseconds()}
}

// Observe notes a record of split at ts, read at processing time now (ms).
func (s *Splits) Observe(split int, ts, now int64) {
	for split >= len(s.max) {
		s.max, s.last = append(s.max, Min), append(s.last, 0)
	}
	if ts > s.max[split] {
		s.max[split] = ts
	}
	s.last[split] = now
}

// Current returns the watermark at processing time now (ms), and whether
// every split that has delivered records is idle. Before any record it is
// Min, not idle.
func (s *Splits) Current(now int64) (int64, bool) {
	lowest, active, seen := int64(Max), false, false
	for i, m := range s.max {
		if s.last[i] == 0 && m == Min {
			continue
		}
		seen = true
		if s.idleFor > 0 && now-s.last[i] >= s.idleFor {
			continue
		}
		active = true
		lowest = min(lowest, m)
	}
	switch {
	case !seen:
		return Min, false
	case !active:
		return Min, true
	case lowest == Min:
		return Min, false
	}
	return lowest - s.bound - 1, false
}
