package jobspec

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// KafkaSource reads records from Kafka topics (internal/connector/kafka).
type KafkaSource struct {
	// Brokers are the seed brokers, host:port.
	Brokers []string
	// Topics lists the topics to read; TopicPattern is instead a regular
	// expression a topic's whole name must match. Exactly one is set.
	Topics       []string
	TopicPattern string
	// Group is the consumer group that offsets are committed to when a
	// checkpoint completes, for monitoring; empty means none.
	Group     string
	StartFrom KafkaStart
	// Format is "value" (the record is the Kafka value) or "json" (the
	// record is a JSON object with topic, partition, offset, timestamp,
	// key, value and headers).
	Format string
	// ReadUncommitted reads the records of open and aborted transactions
	// too.
	ReadUncommitted bool
	// DiscoveryInterval is how often new partitions are looked for; 0 means
	// only when the source starts.
	DiscoveryInterval time.Duration
	Security          KafkaSecurity
}

// KafkaStartKind is where a Kafka source starts without state.
type KafkaStartKind string

// The Kafka start kinds.
const (
	KafkaEarliest  KafkaStartKind = "earliest"
	KafkaLatest    KafkaStartKind = "latest"
	KafkaCommitted KafkaStartKind = "committed"
	KafkaTimestamp KafkaStartKind = "timestamp"
)

// KafkaStart is a Kafka source's start position; Millis is the time of
// KafkaTimestamp, in milliseconds since the epoch.
type KafkaStart struct {
	Kind   KafkaStartKind
	Millis int64
}

// KafkaSecurity is how a Kafka connector authenticates; nil fields mean
// plaintext and no authentication.
type KafkaSecurity struct {
	SASL *KafkaSASL
	TLS  *KafkaTLS
}

// KafkaSASL is SASL authentication: Mechanism is PLAIN, SCRAM-SHA-256 or
// SCRAM-SHA-512.
type KafkaSASL struct {
	Mechanism, Username, Password string
}

// KafkaTLS is TLS to the brokers. Empty files mean the system's roots and
// no client certificate.
type KafkaTLS struct {
	CAFile, CertFile, KeyFile, ServerName string
	InsecureSkipVerify                    bool
}

// KafkaSemantic is the delivery guarantee of a Kafka sink.
type KafkaSemantic string

// The Kafka sink semantics.
const (
	KafkaExactlyOnce KafkaSemantic = "exactly-once"
	KafkaAtLeastOnce KafkaSemantic = "at-least-once"
)

// The defaults and limits of Kafka connectors.
const (
	defaultKafkaTxn   = 15 * time.Minute
	defaultDiscovery  = 30 * time.Second
	maxKafkaTopicName = 249
)

// KafkaSink writes records to a Kafka topic (internal/connector/kafka).
type KafkaSink struct {
	Brokers []string
	Topic   string
	// Semantic applies to jobs with checkpoints; without, the sink is
	// at-least-once.
	Semantic KafkaSemantic
	// Key is the Kafka key of each record: Kind "none", "value" (the whole
	// value) or "csv" (field Field, from 0, of the comma-separated value).
	Key KafkaKey
	// TransactionalIDPrefix names an exactly-once sink's transactional ids;
	// by default <job name>-<sink uid>.
	TransactionalIDPrefix string
	// TransactionTimeout is the timeout of an exactly-once sink's
	// transactions.
	TransactionTimeout time.Duration
	Security           KafkaSecurity
}

// KafkaKey is how a Kafka sink keys records.
type KafkaKey struct {
	Kind  string
	Field int
}

// namedScalar is a named raw field, for rejecting fields in spec order.
type namedScalar struct {
	name string
	s    scalar
}

// onlyAll rejects each of fields under path that the spec sets.
func (b *builder) onlyAll(path string, fields []namedScalar, where string) {
	for _, f := range fields {
		b.p.only(path+"."+f.name, f.s, where)
	}
}

// notKafkaSource rejects the Kafka fields of a file or generator source.
func (b *builder) notKafkaSource(r *rawSource) {
	b.onlyAll("source", []namedScalar{{"brokers", r.Brokers}, {"topics", r.Topics}, {"topicPattern", r.TopicPattern}, {"group", r.Group},
		{"startFrom", r.StartFrom}, {"format", r.Format}, {"isolation", r.Isolation}, {"discoveryInterval", r.DiscoveryInterval}}, "a kafka source")
	b.notKafkaSecurity("source", r.SASL, r.TLS)
}

// notKafkaSink rejects the Kafka fields of a file or stdout sink.
func (b *builder) notKafkaSink(r *rawSink) {
	b.onlyAll("sink", []namedScalar{{"brokers", r.Brokers}, {"topic", r.Topic}, {"semantic", r.Semantic}, {"key", r.Key},
		{"transactionalIdPrefix", r.TransactionalIDPrefix}, {"transactionTimeout", r.TransactionTimeout}}, "a kafka sink")
	b.notKafkaSecurity("sink", r.SASL, r.TLS)
}

func (b *builder) notKafkaSecurity(path string, sasl *rawSASL, tls *rawTLS) {
	if sasl != nil {
		b.p.reject(path+".sasl", "only applies to a kafka %s", path)
	}
	if tls != nil {
		b.p.reject(path+".tls", "only applies to a kafka %s", path)
	}
}

// kafkaSource builds a Kafka source.
func (b *builder) kafkaSource(r *rawSource) *KafkaSource {
	b.onlyAll("source", []namedScalar{{"path", r.Path}, {"follow", r.Follow}}, "a file source")
	b.p.only("source.rate", r.Rate, "a file or generator source")
	b.onlyAll("source", []namedScalar{{"count", r.Count}, {"kind", r.Kind}, {"keys", r.Keys}, {"size", r.Size}}, "a generator source")
	k := &KafkaSource{
		Brokers:           b.brokers("source.brokers", r.Brokers),
		Group:             b.optionalText("source.group", r.Group),
		Format:            b.p.choice("source.format", r.Format, "format", "value", "value", "json"),
		DiscoveryInterval: b.p.duration("source.discoveryInterval", r.DiscoveryInterval, defaultDiscovery, 0),
		Security:          b.kafkaSecurity("source", r.SASL, r.TLS),
	}
	isolation := b.p.choice("source.isolation", r.Isolation, "isolation", "read-committed", "read-committed", "read-uncommitted")
	k.ReadUncommitted = isolation == "read-uncommitted"
	switch {
	case r.Topics.set && r.TopicPattern.set:
		b.p.reject("source.topicPattern", "set either topics or topicPattern, not both")
	case r.TopicPattern.set:
		k.TopicPattern = b.topicPattern("source.topicPattern", r.TopicPattern)
	case r.Topics.set:
		k.Topics = b.topics("source.topics", r.Topics)
	default:
		b.p.add("source.topics", "required (or topicPattern)")
	}
	k.StartFrom = b.startFrom("source.startFrom", r.StartFrom)
	if k.StartFrom.Kind == KafkaCommitted && !r.Group.set {
		b.p.add("source.startFrom", "committed needs a group to read the offsets of")
	}
	return k
}

// kafkaSink builds a Kafka sink; build fills in the default transactional
// id prefix, which needs the job's name.
func (b *builder) kafkaSink(r *rawSink) *KafkaSink {
	k := &KafkaSink{
		Brokers:  b.brokers("sink.brokers", r.Brokers),
		Semantic: KafkaSemantic(b.p.choice("sink.semantic", r.Semantic, "semantic", string(KafkaExactlyOnce), string(KafkaExactlyOnce), string(KafkaAtLeastOnce))),
		Key:      b.kafkaKey("sink.key", r.Key),
		Security: b.kafkaSecurity("sink", r.SASL, r.TLS),
	}
	if topics := b.topics("sink.topic", r.Topic); len(topics) > 1 {
		b.p.reject("sink.topic", "a sink writes to one topic, got %d", len(topics))
	} else if len(topics) == 1 {
		k.Topic = topics[0]
	}
	if k.Semantic != KafkaExactlyOnce {
		b.p.only("sink.transactionalIdPrefix", r.TransactionalIDPrefix, "semantic exactly-once")
		b.p.only("sink.transactionTimeout", r.TransactionTimeout, "semantic exactly-once")
		return k
	}
	if r.TransactionalIDPrefix.set {
		k.TransactionalIDPrefix = b.p.name("sink.transactionalIdPrefix", r.TransactionalIDPrefix)
	}
	k.TransactionTimeout = b.p.duration("sink.transactionTimeout", r.TransactionTimeout, defaultKafkaTxn, time.Second)
	return k
}

// brokers returns the required comma-separated list of host:port at path.
func (b *builder) brokers(path string, s scalar) []string {
	v, ok := b.p.text(path, s)
	if !ok {
		return nil
	}
	var out []string
	for _, addr := range strings.Split(v, ",") {
		addr = strings.TrimSpace(addr)
		host, port, err := net.SplitHostPort(addr)
		if _, perr := strconv.ParseUint(port, 10, 16); err != nil || host == "" || perr != nil {
			b.p.reject(path, "%q is not host:port (want a comma-separated list such as kafka-1:9092,kafka-2:9092)", addr)
			return nil
		}
		out = append(out, addr)
	}
	return out
}

// topics returns the required comma-separated topic names at path.
func (b *builder) topics(path string, s scalar) []string {
	v, ok := b.p.text(path, s)
	if !ok {
		return nil
	}
	var out []string
	for _, t := range strings.Split(v, ",") {
		t = strings.TrimSpace(t)
		if !isName(t) || len(t) > maxKafkaTopicName {
			b.p.reject(path, "%q is not a topic name ([A-Za-z0-9._-]+, at most %d characters)", t, maxKafkaTopicName)
			return nil
		}
		out = append(out, t)
	}
	return out
}

// topicPattern returns the regular expression at path.
func (b *builder) topicPattern(path string, s scalar) string {
	v, ok := b.p.text(path, s)
	if !ok {
		return ""
	}
	if _, err := regexp.Compile(v); err != nil {
		b.p.reject(path, "not a regular expression: %v", err)
	}
	return v
}

// startFrom parses earliest, latest, committed or timestamp:T, T being an
// RFC 3339 time or milliseconds since the epoch.
func (b *builder) startFrom(path string, s scalar) KafkaStart {
	if !s.set {
		return KafkaStart{Kind: KafkaEarliest}
	}
	switch v := KafkaStartKind(s.value); v {
	case KafkaEarliest, KafkaLatest, KafkaCommitted:
		return KafkaStart{Kind: v}
	}
	if t, ok := strings.CutPrefix(s.value, "timestamp:"); ok {
		if ms, err := strconv.ParseInt(t, 10, 64); err == nil && ms >= 0 {
			return KafkaStart{Kind: KafkaTimestamp, Millis: ms}
		}
		if tm, err := time.Parse(time.RFC3339Nano, t); err == nil {
			return KafkaStart{Kind: KafkaTimestamp, Millis: tm.UnixMilli()}
		}
	}
	b.p.reject(path, "unknown start %q (want earliest, latest, committed, or timestamp:T with T an RFC 3339 time or milliseconds since the epoch)", s.value)
	return KafkaStart{Kind: KafkaEarliest}
}

// kafkaKey parses none, value or csv:N.
func (b *builder) kafkaKey(path string, s scalar) KafkaKey {
	if !s.set || s.value == "none" {
		return KafkaKey{Kind: "none"}
	}
	if k, ok := parseKey(s.value); ok && k.Kind != KeyFunction {
		return KafkaKey{Kind: string(k.Kind), Field: k.Field}
	}
	b.p.reject(path, "invalid key %q (want none, value, or csv:N with N >= 0)", s.value)
	return KafkaKey{Kind: "none"}
}

// optionalText returns the text at path, or "" when it is absent.
func (b *builder) optionalText(path string, s scalar) string {
	if !s.set {
		return ""
	}
	v, _ := b.p.text(path, s)
	return v
}

// kafkaSecurity builds the sasl and tls sections of a Kafka connector.
func (b *builder) kafkaSecurity(path string, sasl *rawSASL, tls *rawTLS) KafkaSecurity {
	var sec KafkaSecurity
	if sasl != nil {
		p := path + ".sasl"
		sec.SASL = &KafkaSASL{
			Mechanism: b.p.choice(p+".mechanism", sasl.Mechanism, "SASL mechanism", "", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"),
		}
		sec.SASL.Username, _ = b.p.text(p+".username", sasl.Username)
		sec.SASL.Password, _ = b.p.text(p+".password", sasl.Password)
	}
	if tls != nil {
		p := path + ".tls"
		sec.TLS = &KafkaTLS{
			CAFile:             b.optionalText(p+".caFile", tls.CAFile),
			CertFile:           b.optionalText(p+".certFile", tls.CertFile),
			KeyFile:            b.optionalText(p+".keyFile", tls.KeyFile),
			ServerName:         b.optionalText(p+".serverName", tls.ServerName),
			InsecureSkipVerify: b.p.boolean(p+".insecureSkipVerify", tls.InsecureSkipVerify, false),
		}
		if tls.CertFile.set != tls.KeyFile.set {
			b.p.add(p, "certFile and keyFile go together")
		}
	}
	return sec
}

// finishKafka fills in what a Kafka sink's defaults take from the rest of
// the job, and checks its transaction timeout against the checkpoints.
func (b *builder) finishKafka(j *Job) {
	k := j.Sink.Kafka
	if k == nil || k.Semantic != KafkaExactlyOnce {
		return
	}
	if k.TransactionalIDPrefix == "" && j.Name != "" && j.Sink.UID != "" {
		k.TransactionalIDPrefix = j.Name + "-" + j.Sink.UID
	}
	if b.p.rejected("sink.transactionTimeout") || b.p.rejected("checkpoints") {
		return
	}
	if err := j.checkTransactionTimeout(); err != nil {
		b.p.add("sink.transactionTimeout", "%v", err)
	}
}

// checkTransactionTimeout enforces the bound of docs/connectors.md: a
// transaction opens right after one checkpoint's barrier and is committed
// when the next checkpoint completes, which may take its interval, the
// minimum pause and its whole timeout; a shorter transaction timeout lets
// the broker abort, and lose, what a completed checkpoint covers.
func (j *Job) checkTransactionTimeout() error {
	k, c := j.Sink.Kafka, j.Checkpoints
	if k == nil || k.Semantic != KafkaExactlyOnce || c == nil {
		return nil
	}
	if need := c.Interval + c.MinPause + c.Timeout; k.TransactionTimeout < need {
		return fmt.Errorf("%v is less than checkpoints.interval + minPause + timeout (%v): the broker could abort a transaction before its checkpoint completes; raise it (up to the brokers' transaction.max.timeout.ms) or shorten the checkpoints",
			k.TransactionTimeout, need)
	}
	return nil
}
