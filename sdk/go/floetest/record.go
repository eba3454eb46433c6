//go:build !wasip1

package floetest

import (
	"fmt"

	floe "github.com/floe-stream/floe/sdk/go"
)

// Record is an input record: its key (empty before a keyBy), its value and
// its event time, floe.NoTimestamp for none.
type Record struct {
	Key       []byte
	Value     []byte
	Timestamp int64
}

// Value returns an unkeyed record without a timestamp.
func Value(v string) Record { return Record{Value: []byte(v), Timestamp: floe.NoTimestamp} }

// Keyed returns a record of key k without a timestamp.
func Keyed(k, v string) Record {
	return Record{Key: []byte(k), Value: []byte(v), Timestamp: floe.NoTimestamp}
}

// At returns the record with event time ts.
func (r Record) At(ts int64) Record {
	r.Timestamp = ts
	return r
}

// Emitted is a record that a function emitted: the output it went to
// ("main", or the name given to EmitTo), its value and its timestamp,
// floe.NoTimestamp for none.
type Emitted struct {
	Output    string
	Value     []byte
	Timestamp int64
}

// String renders e as "OUTPUT [@TS ]VALUE", e.g. "main @5 abc".
func (e Emitted) String() string {
	if e.Timestamp == floe.NoTimestamp {
		return fmt.Sprintf("%s %s", e.Output, e.Value)
	}
	return fmt.Sprintf("%s @%d %s", e.Output, e.Timestamp, e.Value)
}

// Strings renders each record of out with Emitted.String, for comparing
// output in tests.
func Strings(out []Emitted) []string {
	s := make([]string, len(out))
	for i, e := range out {
		s[i] = e.String()
	}
	return s
}

// Failure is how a call failed: the message the SDK reported and the index
// of the record in the batch that caused it, -1 for none.
type Failure struct {
	Record  int
	Message string
}

// Error implements error.
func (f *Failure) Error() string {
	if f.Record < 0 {
		return f.Message
	}
	return fmt.Sprintf("record %d: %s", f.Record, f.Message)
}
