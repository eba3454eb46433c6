package kafka

import (
	"context"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

func TestUpsertConvert(t *testing.T) {
	tests := []struct {
		name       string
		u          Upsert
		in         string
		key, value string
		tombstone  bool
		err        string
	}{
		{name: "row", u: Upsert{Key: []int{0}}, in: "apple,412,998", key: "apple", value: "apple,412,998"},
		{name: "two key fields", u: Upsert{Key: []int{2, 0}}, in: "apple,412,998", key: "998,apple", value: "apple,412,998"},
		{name: "upsert", u: Upsert{Key: []int{0}, Ops: true}, in: "upsert,apple,412", key: "apple", value: "apple,412"},
		{name: "insert", u: Upsert{Key: []int{0}, Ops: true}, in: "insert,apple,3", key: "apple", value: "apple,3"},
		{name: "delete", u: Upsert{Key: []int{1}, Ops: true}, in: "delete,apple,412", key: "412", tombstone: true},
		{name: "quoted key", u: Upsert{Key: []int{0}, Ops: true}, in: `upsert,"a,""b""",1`, key: `"a,""b"""`, value: `"a,""b""",1`},
		{name: "empty key field", u: Upsert{Key: []int{1}}, in: "a,,c", key: "", value: "a,,c"},
		{name: "bad op", u: Upsert{Key: []int{0}, Ops: true}, in: "replace,a", err: `record "replace,a" does not start with the op upsert, insert or delete`},
		{name: "too few fields", u: Upsert{Key: []int{3}}, in: "a,b", err: `record "a,b" has 2 fields, the key wants field 3`},
		{name: "open quote", u: Upsert{Key: []int{0}}, in: `"a,b`, err: "an unterminated quoted field"},
	}
	for _, tt := range tests {
		k, v, err := tt.u.convert([]byte(tt.in))
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one saying %s", tt.name, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case string(k) != tt.key || string(v) != tt.value || (v == nil) != tt.tombstone:
			t.Errorf("%s: key %q value %q (nil %v), want %q %q (tombstone %v)", tt.name, k, v, v == nil, tt.key, tt.value, tt.tombstone)
		}
	}
	if _, err := ParseUpsertKey("0, 2"); err != nil {
		t.Errorf("ParseUpsertKey(\"0, 2\"): %v", err)
	}
	for _, bad := range []string{"", "-1", "a", "1,"} {
		if _, err := ParseUpsertKey(bad); err == nil {
			t.Errorf("ParseUpsertKey(%q) took it", bad)
		}
	}
}

// TestUpsertSinkWritesATable writes a changelog through an upsert sink:
// a consumer that keeps each key's last value and drops a key at its
// tombstone holds the table the changelog describes.
func TestUpsertSinkWritesATable(t *testing.T) {
	k := newKafka(t)
	k.createTopic("table", 3)
	cfg := SinkConfig{Brokers: k.brokers, Topic: "table", Upsert: &Upsert{Key: []int{0}, Ops: true}}
	s, err := OpenSink(cfg, connector.SplitInfo{Subtask: 0, Parallelism: 1}, false, false)
	must(t, err)
	var b record.Batch
	for _, l := range []string{"upsert,apple,1", "upsert,pear,1", "upsert,apple,2", "delete,pear,1", "upsert,fig,7", "upsert,pear,3", "delete,fig,7"} {
		b.Append(nil, []byte(l), record.NoTimestamp)
	}
	must(t, s.Write(&b))
	b.Reset()
	b.Append(nil, []byte("upsert"), record.NoTimestamp)
	if err := s.Write(&b); err == nil || !strings.Contains(err.Error(), `kafka sink table: upsert sink: record "upsert"`) {
		t.Errorf("a record without a row: %v", err)
	}
	must(t, s.Close())
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.brokers...), kgo.ConsumeTopics("table"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	must(t, err)
	defer cl.Close()
	table := map[string]string{}
	for n := 0; n < 7; {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		fs := cl.PollFetches(ctx)
		must(t, ctx.Err())
		cancel()
		fs.EachRecord(func(r *kgo.Record) {
			n++
			if r.Value == nil {
				delete(table, string(r.Key))
				return
			}
			table[string(r.Key)] = string(r.Value)
		})
	}
	if len(table) != 2 || table["apple"] != "apple,2" || table["pear"] != "pear,3" {
		t.Errorf("the table the topic holds: %v, want apple,2 and pear,3", table)
	}
}
