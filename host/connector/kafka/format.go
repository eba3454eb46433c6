package kafka

import (
	"encoding/json"

	"github.com/twmb/franz-go/pkg/kgo"
)

// jsonFormatter turns Kafka records into Floe record values.
type jsonFormatter struct {
	format Format
}

// jsonRecord is a Kafka record in FormatJSON. A key, value or header value
// that is absent (null in Kafka) is null, unlike an empty one.
type jsonRecord struct {
	Topic     string       `json:"topic"`
	Partition int32        `json:"partition"`
	Offset    int64        `json:"offset"`
	Timestamp int64        `json:"timestamp"`
	Key       *string      `json:"key"`
	Value     *string      `json:"value"`
	Headers   []jsonHeader `json:"headers,omitempty"`
}

type jsonHeader struct {
	Key   string  `json:"key"`
	Value *string `json:"value"`
}

// value returns the value of the Floe record for r, which the caller
// copies.
func (f *jsonFormatter) value(r *kgo.Record) []byte {
	if f.format != FormatJSON {
		return r.Value
	}
	jr := jsonRecord{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp.UnixMilli(),
		Key: text(r.Key), Value: text(r.Value)}
	for _, h := range r.Headers {
		jr.Headers = append(jr.Headers, jsonHeader{Key: h.Key, Value: text(h.Value)})
	}
	b, _ := json.Marshal(jr) // NB: cannot fail on strings and numbers.
	return b
}

// text returns b as a string, or nil for a nil b.
func text(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}
