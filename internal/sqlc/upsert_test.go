package sqlc

import (
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host/connector/kafka"
	"github.com/floe-stream/floe/internal/jobspec"
)

// TestUpsertKafka compiles an updating GROUP BY and an appending query
// into upsert-kafka tables: each becomes a kafka sink keyed by its
// PRIMARY KEY's columns, the updating one with changelog: true.
func TestUpsertKafka(t *testing.T) {
	src := bidsTable + `
CREATE TABLE per_channel (n BIGINT, channel VARCHAR, top BIGINT, PRIMARY KEY (channel) NOT ENFORCED)
  WITH (connector = 'upsert-kafka', brokers = 'k:9092', topic = 'per-channel');
CREATE TABLE latest (auction BIGINT PRIMARY KEY NOT ENFORCED, price BIGINT)
  WITH (connector = 'upsert-kafka', brokers = 'k:9092', topic = 'latest');
INSERT INTO per_channel SELECT COUNT(*), channel, MAX(price) FROM bids GROUP BY channel;
INSERT INTO latest SELECT auction, price FROM bids;
`
	j, err := Compile(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := jobspec.Parse(j.Spec, "/", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.Spec)
	}
	want := map[string]kafka.Upsert{"per_channel": {Key: []int{1}, Ops: true}, "latest": {Key: []int{0}}}
	if len(job.Sinks) != 2 {
		t.Fatalf("%d sinks, want 2\n%s", len(job.Sinks), j.Spec)
	}
	for _, s := range job.Sinks {
		k, ok := s.Spec.(*kafka.SinkSpec)
		if !ok || k.Upsert == nil {
			t.Errorf("sink %s: %+v, want an upsert kafka sink\n%s", s.UID, s.Spec, j.Spec)
			continue
		}
		if w := want[s.UID]; !slices.Equal(k.Upsert.Key, w.Key) || k.Upsert.Ops != w.Ops {
			t.Errorf("sink %s: upsert %+v, want %+v", s.UID, *k.Upsert, w)
		}
	}
}

func TestUpsertKafkaErrors(t *testing.T) {
	const sink = "WITH (connector = 'upsert-kafka', brokers = 'k:9092', topic = 'o')"
	tests := []struct{ name, src, want string }{
		{"no key", bidsTable + "CREATE TABLE o (a BIGINT) " + sink + ";",
			"line 3, column 1: CREATE TABLE o: an upsert-kafka table needs a PRIMARY KEY (its Kafka key)"},
		{"unknown column", bidsTable + "CREATE TABLE o (a BIGINT, PRIMARY KEY (b)) " + sink + ";",
			`line 3, column 27: PRIMARY KEY: o has no column "b" (a)`},
		{"two keys", bidsTable + "CREATE TABLE o (a BIGINT PRIMARY KEY, b BIGINT, PRIMARY KEY (b)) " + sink + ";",
			"CREATE TABLE o: a table has one PRIMARY KEY"},
		{"key elsewhere", bidsTable + "CREATE TABLE o (a BIGINT, PRIMARY KEY (a) NOT ENFORCED) WITH (connector = 'stdout');",
			"line 3, column 27: PRIMARY KEY: only an upsert-kafka table has one (o is stdout)"},
		{"json", bidsTable + "CREATE TABLE o (a BIGINT, PRIMARY KEY (a)) WITH (connector = 'upsert-kafka', format = 'json', topic = 'o');",
			"an upsert-kafka table's format is csv"},
		{"read", bidsTable + "CREATE TABLE u (a BIGINT, PRIMARY KEY (a)) " + sink + ";\nCREATE TABLE o (a BIGINT) WITH (connector = 'stdout');\nINSERT INTO o SELECT a FROM u;",
			"table u is an upsert-kafka table: a sink only; reading one is not supported"},
		{"mixed", bidsTable + "CREATE TABLE u (a BIGINT, n BIGINT, PRIMARY KEY (a)) " + sink + ";\n" +
			"INSERT INTO u SELECT auction, COUNT(*) FROM bids GROUP BY auction;\nINSERT INTO u SELECT auction, price FROM bids;",
			"table u: its queries must all write updating results or all append, for its upsert sink"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.src, Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestUpsertKafkaOuterJoin compiles a regular outer join, whose result is
// a changelog of inserts and deletes, into an upsert-kafka table: its
// rows carry their op (changelog: true), so a delete is a tombstone.
func TestUpsertKafkaOuterJoin(t *testing.T) {
	src := bidsTable + asksTable + `
CREATE TABLE o (auction BIGINT PRIMARY KEY NOT ENFORCED, seller BIGINT)
  WITH (connector = 'upsert-kafka', brokers = 'k:9092', topic = 'o');
SET state_ttl = '1h';
INSERT INTO o SELECT b.auction, a.seller FROM bids b LEFT JOIN asks a ON a.auction = b.auction;
`
	j, err := Compile(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := jobspec.Parse(j.Spec, "/", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, j.Spec)
	}
	k, ok := job.Sinks[0].Spec.(*kafka.SinkSpec)
	if !ok || k.Upsert == nil || !k.Upsert.Ops || !slices.Equal(k.Upsert.Key, []int{0}) {
		t.Fatalf("sink %+v, want an upsert kafka sink keyed by field 0 reading ops\n%s", job.Sinks[0].Spec, j.Spec)
	}
}
