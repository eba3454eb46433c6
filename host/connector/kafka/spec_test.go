package kafka_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	_ "github.com/floe-stream/floe/host/connector/builtin"
	"github.com/floe-stream/floe/host/connector/kafka"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/jobspec/jobspectest"
)

func TestParseKafkaJob(t *testing.T) {
	spec := jobspectest.Spec(
		"name: clicks",
		"params: {password: ~}",
		"source:",
		"  type: kafka",
		"  uid: in",
		"  brokers: k1:9092, k2:9093",
		"  topics: clicks,views",
		"  group: clicks-floe",
		"  startFrom: timestamp:2026-01-02T03:04:05Z",
		"  format: json",
		"  isolation: read-uncommitted",
		"  discoveryInterval: 0s",
		"  sasl: {mechanism: SCRAM-SHA-512, username: floe, password: '${password}'}",
		"  tls: {caFile: /etc/ca.pem}",
		"sink:",
		"  type: kafka",
		"  uid: out",
		"  brokers: k1:9092",
		"  topic: counts",
		"  key: csv:0",
		"  transactionTimeout: 14m",
		"  tls: {certFile: c.pem, keyFile: k.pem, insecureSkipVerify: true}",
		"checkpoints: {interval: 10s}",
	)
	job, err := jobspec.Parse([]byte(spec), "", map[string]string{"password": "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	wantSource := &kafka.SourceSpec{
		Brokers: []string{"k1:9092", "k2:9093"}, Topics: []string{"clicks", "views"}, Group: "clicks-floe",
		StartFrom: kafka.StartFrom{Kind: kafka.StartTimestamp, Millis: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli()},
		Format:    kafka.FormatJSON, ReadUncommitted: true,
		Security: kafka.Security{SASL: &kafka.SASL{Mechanism: "SCRAM-SHA-512", Username: "floe", Password: "s3cret"},
			TLS: &kafka.TLS{CAFile: "/etc/ca.pem"}},
	}
	if !reflect.DeepEqual(job.Sources[0].Spec, wantSource) || job.Sources[0].Type != "kafka" || job.Sources[0].Bounded() {
		t.Errorf("source %+v\nwant   %+v", job.Sources[0].Spec, wantSource)
	}
	wantSink := &kafka.SinkSpec{
		Brokers: []string{"k1:9092"}, Topic: "counts", Semantic: kafka.ExactlyOnce, Key: kafka.KeyCSV, Field: 0,
		TransactionalIDPrefix: "clicks-out", TransactionTimeout: 14 * time.Minute,
		Security: kafka.Security{TLS: &kafka.TLS{CertFile: "c.pem", KeyFile: "k.pem", InsecureSkipVerify: true}},
	}
	if !reflect.DeepEqual(job.Sinks[0].Spec, wantSink) || job.Sinks[0].Type != "kafka" {
		t.Errorf("sink %+v\nwant %+v", job.Sinks[0].Spec, wantSink)
	}
}

func TestParseKafkaDefaults(t *testing.T) {
	spec := jobspectest.Spec("name: j",
		"source: {type: kafka, uid: in, brokers: 'localhost:9092', topicPattern: 'logs-.*'}",
		"sink: {type: kafka, uid: out, brokers: 'localhost:9092', topic: out, semantic: at-least-once}")
	job, err := jobspec.Parse([]byte(spec), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantSource := &kafka.SourceSpec{Brokers: []string{"localhost:9092"}, TopicPattern: "logs-.*", StartFrom: kafka.StartFrom{Kind: kafka.StartEarliest},
		Format: kafka.FormatValue, DiscoveryInterval: 30 * time.Second}
	if !reflect.DeepEqual(job.Sources[0].Spec, wantSource) {
		t.Errorf("source %+v\nwant   %+v", job.Sources[0].Spec, wantSource)
	}
	wantSink := &kafka.SinkSpec{Brokers: []string{"localhost:9092"}, Topic: "out", Semantic: kafka.AtLeastOnce, Key: kafka.KeyNone}
	if !reflect.DeepEqual(job.Sinks[0].Spec, wantSink) {
		t.Errorf("sink %+v\nwant %+v", job.Sinks[0].Spec, wantSink)
	}
}

func TestParseReportsKafkaProblems(t *testing.T) {
	const (
		okIn  = "source: {type: kafka, uid: in, brokers: 'b:9092', topics: in}"
		okOut = "sink: {type: kafka, uid: out, brokers: 'b:9092', topic: out}"
	)
	tests := []struct {
		name string
		spec string
		want []string
	}{{
		name: "required fields",
		spec: jobspectest.Spec(okName, "source: {type: kafka, uid: in}", "sink: {type: kafka, uid: out}"),
		want: []string{
			`line 2: source.brokers: required`,
			`line 2: source.topics: required (or topicPattern)`,
			`line 3: sink.brokers: required`,
			`line 3: sink.topic: required`,
		},
	}, {
		name: "malformed values",
		spec: jobspectest.Spec(okName,
			"source: {type: kafka, uid: in, brokers: 'b:9092,b', topicPattern: '(', startFrom: yesterday, isolation: dirty}",
			"sink: {type: kafka, uid: out, brokers: 'b:9092', topic: 'a b', key: function, semantic: twice}"),
		want: []string{
			`line 2: source.brokers: "b" is not host:port`,
			`line 2: source.isolation: unknown isolation "dirty" (want read-committed or read-uncommitted)`,
			`line 2: source.topicPattern: not a regular expression`,
			`line 2: source.startFrom: unknown start "yesterday"`,
			`line 3: sink.semantic: unknown semantic "twice" (want exactly-once or at-least-once)`,
			`line 3: sink.key: invalid key "function" (want none, value, or csv:N with N >= 0)`,
			`line 3: sink.topic: "a b" is not a topic name`,
		},
	}, {
		name: "topics and a pattern, committed without a group",
		spec: jobspectest.Spec(okName, "source: {type: kafka, uid: in, brokers: 'b:9092', topics: a, topicPattern: b, startFrom: committed}", okOut),
		want: []string{
			`line 2: source.topicPattern: set either topics or topicPattern, not both`,
			`line 2: source.startFrom: committed needs a group`,
		},
	}, {
		name: "fields of other types",
		spec: jobspectest.Spec(okName,
			"source: {type: kafka, uid: in, brokers: 'b:9092', topics: in, path: x, rate: 5, count: 3}",
			"sink: {type: file, uid: out, path: x, topic: t, sasl: {mechanism: PLAIN, username: u, password: p}}"),
		want: []string{
			`line 2: source.path: only applies to a file source`,
			`line 2: source.rate: only applies to a file, generator or nexmark source`,
			`line 2: source.count: only applies to a generator or nexmark source`,
			`line 3: sink.topic: only applies to a kafka sink`,
			`line 3: sink.sasl: only applies to a kafka sink`,
		},
	}, {
		name: "transaction fields of an at-least-once sink",
		spec: jobspectest.Spec(okName, okIn, "sink: {type: kafka, uid: out, brokers: 'b:9092', topic: out, semantic: at-least-once, transactionTimeout: 1m}"),
		want: []string{`line 3: sink.transactionTimeout: only applies to semantic exactly-once`},
	}, {
		name: "transaction timeout shorter than a checkpoint can take",
		spec: jobspectest.Spec(okName, okIn, "sink: {type: kafka, uid: out, brokers: 'b:9092', topic: out, transactionTimeout: 5m}",
			"checkpoints: {interval: 1m, timeout: 4m, minPause: 30s}"),
		want: []string{`line 3: sink.transactionTimeout: 5m0s is less than checkpoints.interval + minPause + timeout (5m30s)`},
	}, {
		name: "upsert sinks",
		spec: jobspectest.Spec(okName, okIn,
			"sinks:",
			"  - {type: kafka, uid: a, brokers: 'b:9092', topic: a, upsertKey: '0,x'}",
			"  - {type: kafka, uid: b, brokers: 'b:9092', topic: b, upsertKey: '1', key: csv:0}",
			"  - {type: kafka, uid: c, brokers: 'b:9092', topic: c, changelog: true}"),
		want: []string{
			`sinks[0].upsertKey: "0,x" is not a comma-separated list of fields from 0`,
			`sinks[1].key: set either key or upsertKey, not both`,
			`sinks[2].changelog: only applies to upsertKey`,
		},
	}, {
		name: "security",
		spec: jobspectest.Spec(okName,
			"source: {type: kafka, uid: in, brokers: 'b:9092', topics: in, sasl: {mechanism: GSSAPI, username: u}}",
			"sink: {type: kafka, uid: out, brokers: 'b:9092', topic: out, tls: {certFile: c.pem}}"),
		want: []string{
			`line 2: source.sasl.mechanism: unknown SASL mechanism "GSSAPI" (want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)`,
			`line 2: source.sasl.password: required`,
			`line 3: sink.tls: certFile and keyFile go together`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jobspec.Parse([]byte(tt.spec), "", nil)
			if err == nil {
				t.Fatalf("no error, want:\n%s", strings.Join(tt.want, "\n"))
			}
			jobspectest.AssertLines(t, err, tt.want)
		})
	}
}

func TestCheckpointIntervalFlagChecksTheTransactionTimeout(t *testing.T) {
	job, err := jobspec.Parse([]byte(jobspectest.Spec("name: j",
		"source: {type: kafka, uid: in, brokers: 'b:9092', topics: in}",
		"sink: {type: kafka, uid: out, brokers: 'b:9092', topic: out, transactionTimeout: 11m}")), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := job.WithCheckpointInterval(time.Second); err != nil {
		t.Errorf("1s with the default 10m checkpoint timeout: %v", err)
	}
	if err := job.WithCheckpointInterval(2 * time.Minute); err == nil || !strings.Contains(err.Error(), "sink.transactionTimeout: 11m0s is less than") {
		t.Errorf("2m with the default 10m checkpoint timeout: %v, want the transaction timeout refused", err)
	}
}

func TestEmptyTLSSectionTurnsTLSOn(t *testing.T) {
	job, err := jobspec.Parse([]byte(jobspectest.Spec("name: j",
		"source: {type: kafka, uid: in, brokers: 'b:9093', topics: in, tls: {}}",
		"sink: {type: stdout, uid: out}")), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tls := job.Sources[0].Spec.(*kafka.SourceSpec).Security.TLS; tls == nil || *tls != (kafka.TLS{}) {
		t.Errorf("tls: {} gives %+v, want TLS with the defaults", tls)
	}
}

// okName is the valid name line that the cases above build on.
const okName = "name: j"
