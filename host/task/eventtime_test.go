package task

import (
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/eventtime"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/jobspec"
)

// TestTimestampErrorQuotesTheRecordCutAtACharacter checks the record that
// a timestamp error quotes: cut before a character that would not fit
// whole, with "…" and the record's length.
func TestTimestampErrorQuotesTheRecordCutAtACharacter(t *testing.T) {
	et := &jobspec.EventTime{Field: jobspec.TimestampField{CSV: -1, JSON: "ts"}, Format: "unix-ms"}
	s := &sourceTime{extract: eventtime.NewExtractor(et), gen: eventtime.NewGenerator(0)}
	v := strings.Repeat("a", 63) + "é" + strings.Repeat("a", 36)
	var b record.Batch
	b.Append(nil, []byte(v), record.NoTimestamp)
	err := s.stamp(&b, time.Now)
	want := `source record "` + strings.Repeat("a", 63) + `"… (101 bytes): `
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want it to start with %s", err, want)
	}
}
