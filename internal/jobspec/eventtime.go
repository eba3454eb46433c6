package jobspec

import (
	"strconv"
	"strings"
	"time"
)

// EventTime is how a source gives records their event time and the stream
// its watermarks (docs/event-time.md).
type EventTime struct {
	// Field is where a record's timestamp is read from its value; the zero
	// Field keeps the timestamp the source itself gives (none for a file).
	Field TimestampField
	// Format is how Field's text is read: "unix-ms", "unix-s", "rfc3339" or
	// a Go time layout such as "2006-01-02 15:04:05.000" (read as UTC).
	Format string
	// MaxOutOfOrderness is how late a record may come after a newer one:
	// the watermark trails the newest timestamp seen by this much.
	MaxOutOfOrderness time.Duration
	// Interval is how often a source subtask emits its watermark.
	Interval time.Duration
	// IdleTimeout marks a source subtask idle when it has had no record for
	// that long, so it does not hold back the watermark; 0 means never.
	IdleTimeout time.Duration
}

// TimestampField locates a timestamp in a record's value.
type TimestampField struct {
	// CSV is the 0-based comma-separated field, or -1.
	CSV int
	// JSON is a dot path into a JSON object, or "".
	JSON string
}

// IsZero reports whether no field is set.
func (f TimestampField) IsZero() bool { return f.CSV < 0 && f.JSON == "" }

func (f TimestampField) String() string {
	if f.JSON != "" {
		return "json:" + f.JSON
	}
	if f.CSV >= 0 {
		return "csv:" + strconv.Itoa(f.CSV)
	}
	return "the source's own"
}

// The defaults of event time.
const (
	DefaultWatermarkInterval = 200 * time.Millisecond
	DefaultTimestampFormat   = "unix-ms"
)

type rawTimestamps struct {
	Field  Scalar `yaml:"field"`
	Format Scalar `yaml:"format"`
}

type rawWatermarks struct {
	MaxOutOfOrderness Scalar `yaml:"maxOutOfOrderness"`
	Interval          Scalar `yaml:"interval"`
	IdleTimeout       Scalar `yaml:"idleTimeout"`
}

// eventTime returns the event-time settings of the source at path: nil
// unless the spec has a timestamps or watermarks section.
func (b *builder) eventTime(path string, ts *rawTimestamps, wm *rawWatermarks) *EventTime {
	if ts == nil && wm == nil {
		return nil
	}
	et := &EventTime{Field: TimestampField{CSV: -1}, Format: DefaultTimestampFormat, Interval: DefaultWatermarkInterval}
	if ts != nil {
		if f, ok := b.p.text(path+".timestamps.field", ts.Field); ok {
			et.Field = b.timestampField(path+".timestamps.field", f)
		}
		if ts.Format.set {
			et.Format = ts.Format.value
			switch et.Format {
			case "unix-ms", "unix-s", "rfc3339":
			default:
				if !strings.Contains(et.Format, "2006") {
					b.p.reject(path+".timestamps.format", "must be unix-ms, unix-s, rfc3339 or a Go time layout such as \"2006-01-02 15:04:05.000\", got %q", et.Format)
				}
			}
		}
	}
	if wm != nil {
		et.MaxOutOfOrderness = b.p.duration(path+".watermarks.maxOutOfOrderness", wm.MaxOutOfOrderness, 0, 0)
		et.Interval = b.p.duration(path+".watermarks.interval", wm.Interval, DefaultWatermarkInterval, time.Millisecond)
		et.IdleTimeout = b.p.duration(path+".watermarks.idleTimeout", wm.IdleTimeout, 0, 0)
	}
	return et
}

// timestampField parses the timestamps field f at path.
func (b *builder) timestampField(path, f string) TimestampField {
	kind, arg, _ := strings.Cut(f, ":")
	switch kind {
	case "csv":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			b.p.reject(path, "csv:N needs a field number >= 0, got %q", f)
			return TimestampField{CSV: -1}
		}
		return TimestampField{CSV: n}
	case "json":
		if arg == "" {
			b.p.reject(path, "json:PATH needs a path such as json:event.time")
			return TimestampField{CSV: -1}
		}
		return TimestampField{CSV: -1, JSON: arg}
	}
	b.p.reject(path, "must be csv:N or json:PATH, got %q", f)
	return TimestampField{CSV: -1}
}
