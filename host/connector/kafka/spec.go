package kafka

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/internal/jobspec"
)

// This file is the Kafka connector's part of a job spec: source and sink
// sections of type kafka (docs/connectors.md), and how they open.

func init() {
	jobspec.RegisterSource("kafka", parseSource)
	jobspec.RegisterSink("kafka", false, parseSink)
}

// SourceSpec is a job spec's Kafka source.
type SourceSpec struct {
	// Brokers are the seed brokers, host:port.
	Brokers []string
	// Topics lists the topics to read; TopicPattern is instead a regular
	// expression a topic's whole name must match. Exactly one is set.
	Topics       []string
	TopicPattern string
	// Group is the consumer group that offsets are committed to when a
	// checkpoint completes, for monitoring; empty means none.
	Group     string
	StartFrom StartFrom
	Format    Format
	// ReadUncommitted reads the records of open and aborted transactions
	// too.
	ReadUncommitted bool
	// DiscoveryInterval is how often new partitions are looked for; 0 means
	// only when the source starts.
	DiscoveryInterval time.Duration
	Security          Security
}

// Semantic is the delivery guarantee of a Kafka sink in a job with
// checkpoints.
type Semantic string

// The semantics.
const (
	ExactlyOnce Semantic = "exactly-once"
	AtLeastOnce Semantic = "at-least-once"
)

// SinkSpec is a job spec's Kafka sink.
type SinkSpec struct {
	Brokers []string
	Topic   string
	// Semantic applies to jobs with checkpoints; without, the sink is
	// at-least-once.
	Semantic Semantic
	// Key is the Kafka key of each record: KeyNone, KeyValue (the whole
	// value) or KeyCSV (field Field, from 0, of the comma-separated value).
	Key   KeyKind
	Field int
	// Upsert, when set (upsertKey:), keys each row by its primary key
	// and turns a changelog's deletes (changelog: true) into tombstones.
	Upsert *Upsert
	// TransactionalIDPrefix names an exactly-once sink's transactional ids;
	// by default <job name>-<sink uid>.
	TransactionalIDPrefix string
	// TransactionTimeout is the timeout of an exactly-once sink's
	// transactions.
	TransactionTimeout time.Duration
	Security           Security
}

// maxTopicName is the longest topic name Kafka accepts.
const maxTopicName = 249

type rawSource struct {
	Brokers           jobspec.Scalar `yaml:"brokers"`
	Topics            jobspec.Scalar `yaml:"topics"`
	TopicPattern      jobspec.Scalar `yaml:"topicPattern"`
	Group             jobspec.Scalar `yaml:"group"`
	StartFrom         jobspec.Scalar `yaml:"startFrom"`
	Format            jobspec.Scalar `yaml:"format"`
	Isolation         jobspec.Scalar `yaml:"isolation"`
	DiscoveryInterval jobspec.Scalar `yaml:"discoveryInterval"`
	SASL              *rawSASL       `yaml:"sasl"`
	TLS               *rawTLS        `yaml:"tls"`
}

type rawSink struct {
	Brokers               jobspec.Scalar `yaml:"brokers"`
	Topic                 jobspec.Scalar `yaml:"topic"`
	Semantic              jobspec.Scalar `yaml:"semantic"`
	Key                   jobspec.Scalar `yaml:"key"`
	UpsertKey             jobspec.Scalar `yaml:"upsertKey"`
	Changelog             jobspec.Scalar `yaml:"changelog"`
	TransactionalIDPrefix jobspec.Scalar `yaml:"transactionalIdPrefix"`
	TransactionTimeout    jobspec.Scalar `yaml:"transactionTimeout"`
	SASL                  *rawSASL       `yaml:"sasl"`
	TLS                   *rawTLS        `yaml:"tls"`
}

type rawSASL struct {
	Mechanism jobspec.Scalar `yaml:"mechanism"`
	Username  jobspec.Scalar `yaml:"username"`
	Password  jobspec.Scalar `yaml:"password"`
}

type rawTLS struct {
	CAFile             jobspec.Scalar `yaml:"caFile"`
	CertFile           jobspec.Scalar `yaml:"certFile"`
	KeyFile            jobspec.Scalar `yaml:"keyFile"`
	ServerName         jobspec.Scalar `yaml:"serverName"`
	InsecureSkipVerify jobspec.Scalar `yaml:"insecureSkipVerify"`
}

func parseSource(s *jobspec.Section, r *rawSource) jobspec.SourceSpec {
	k := &SourceSpec{
		Brokers:           brokers(s, "brokers", r.Brokers),
		Group:             s.OptionalText("group", r.Group),
		Format:            Format(s.Choice("format", r.Format, "format", string(FormatValue), string(FormatValue), string(FormatJSON))),
		DiscoveryInterval: s.Duration("discoveryInterval", r.DiscoveryInterval, DefaultDiscoveryInterval, 0),
		Security:          security(s, r.SASL, r.TLS),
	}
	isolation := s.Choice("isolation", r.Isolation, "isolation", "read-committed", "read-committed", "read-uncommitted")
	k.ReadUncommitted = isolation == "read-uncommitted"
	switch {
	case r.Topics.IsSet() && r.TopicPattern.IsSet():
		s.Reject("topicPattern", "set either topics or topicPattern, not both")
	case r.TopicPattern.IsSet():
		k.TopicPattern = topicPattern(s, "topicPattern", r.TopicPattern)
	case r.Topics.IsSet():
		k.Topics = topics(s, "topics", r.Topics)
	default:
		s.Add("topics", "required (or topicPattern)")
	}
	k.StartFrom = startFrom(s, "startFrom", r.StartFrom)
	if k.StartFrom.Kind == StartCommitted && !r.Group.IsSet() {
		s.Add("startFrom", "committed needs a group to read the offsets of")
	}
	return k
}

// parseSink builds a Kafka sink, whose transactional id prefix defaults to
// <job name>-<sink uid>.
func parseSink(s *jobspec.Section, r *rawSink) jobspec.SinkSpec {
	k := &SinkSpec{
		Brokers:  brokers(s, "brokers", r.Brokers),
		Semantic: Semantic(s.Choice("semantic", r.Semantic, "semantic", string(ExactlyOnce), string(ExactlyOnce), string(AtLeastOnce))),
	}
	k.Key, k.Field = key(s, "key", r.Key)
	k.Upsert = upsert(s, r)
	k.Security = security(s, r.SASL, r.TLS)
	if topics := topics(s, "topic", r.Topic); len(topics) > 1 {
		s.Reject("topic", "a sink writes to one topic, got %d", len(topics))
	} else if len(topics) == 1 {
		k.Topic = topics[0]
	}
	if k.Semantic != ExactlyOnce {
		s.Only("transactionalIdPrefix", r.TransactionalIDPrefix, "semantic exactly-once")
		s.Only("transactionTimeout", r.TransactionTimeout, "semantic exactly-once")
		return k
	}
	if r.TransactionalIDPrefix.IsSet() {
		k.TransactionalIDPrefix = s.Name("transactionalIdPrefix", r.TransactionalIDPrefix)
	} else if s.JobName() != "" && s.UID() != "" {
		k.TransactionalIDPrefix = s.JobName() + "-" + s.UID()
	}
	k.TransactionTimeout = s.Duration("transactionTimeout", r.TransactionTimeout, DefaultTransactionTimeout, time.Second)
	return k
}

// upsert parses upsertKey and changelog: nil without an upsert key.
func upsert(s *jobspec.Section, r *rawSink) *Upsert {
	if !r.UpsertKey.IsSet() {
		s.Only("changelog", r.Changelog, "upsertKey")
		return nil
	}
	if r.Key.IsSet() && r.Key.Value() != string(KeyNone) {
		s.Reject("key", "set either key or upsertKey, not both: an upsert sink's Kafka key is its upsert key")
	}
	key, err := ParseUpsertKey(r.UpsertKey.Value())
	if err != nil {
		s.Reject("upsertKey", "%v", err)
		return nil
	}
	return &Upsert{Key: key, Ops: s.Bool("changelog", r.Changelog, false)}
}

// brokers returns the required comma-separated list of host:port at field.
func brokers(s *jobspec.Section, field string, v jobspec.Scalar) []string {
	text, ok := s.Text(field, v)
	if !ok {
		return nil
	}
	var out []string
	for _, addr := range strings.Split(text, ",") {
		addr = strings.TrimSpace(addr)
		host, port, err := net.SplitHostPort(addr)
		if _, perr := strconv.ParseUint(port, 10, 16); err != nil || host == "" || perr != nil {
			s.Reject(field, "%q is not host:port (want a comma-separated list such as kafka-1:9092,kafka-2:9092)", addr)
			return nil
		}
		out = append(out, addr)
	}
	return out
}

// topics returns the required comma-separated topic names at field.
func topics(s *jobspec.Section, field string, v jobspec.Scalar) []string {
	text, ok := s.Text(field, v)
	if !ok {
		return nil
	}
	var out []string
	for _, t := range strings.Split(text, ",") {
		t = strings.TrimSpace(t)
		if !jobspec.IsName(t) || len(t) > maxTopicName {
			s.Reject(field, "%q is not a topic name ([A-Za-z0-9._-]+, at most %d characters)", t, maxTopicName)
			return nil
		}
		out = append(out, t)
	}
	return out
}

// topicPattern returns the regular expression at field.
func topicPattern(s *jobspec.Section, field string, v jobspec.Scalar) string {
	text, ok := s.Text(field, v)
	if !ok {
		return ""
	}
	if _, err := regexp.Compile(text); err != nil {
		s.Reject(field, "not a regular expression: %v", err)
	}
	return text
}

// startFrom parses earliest, latest, committed or timestamp:T, T being an
// RFC 3339 time or milliseconds since the epoch.
func startFrom(s *jobspec.Section, field string, v jobspec.Scalar) StartFrom {
	if !v.IsSet() {
		return StartFrom{Kind: StartEarliest}
	}
	switch k := StartKind(v.Value()); k {
	case StartEarliest, StartLatest, StartCommitted:
		return StartFrom{Kind: k}
	}
	if t, ok := strings.CutPrefix(v.Value(), "timestamp:"); ok {
		if ms, err := strconv.ParseInt(t, 10, 64); err == nil && ms >= 0 {
			return StartFrom{Kind: StartTimestamp, Millis: ms}
		}
		if tm, err := time.Parse(time.RFC3339Nano, t); err == nil {
			return StartFrom{Kind: StartTimestamp, Millis: tm.UnixMilli()}
		}
	}
	s.Reject(field, "unknown start %q (want earliest, latest, committed, or timestamp:T with T an RFC 3339 time or milliseconds since the epoch)", v.Value())
	return StartFrom{Kind: StartEarliest}
}

// key parses none, value or csv:N.
func key(s *jobspec.Section, field string, v jobspec.Scalar) (KeyKind, int) {
	if !v.IsSet() || v.Value() == string(KeyNone) {
		return KeyNone, 0
	}
	if k, ok := jobspec.ParseKey(v.Value()); ok && k.Kind != jobspec.KeyFunction {
		return KeyKind(k.Kind), k.Field
	}
	s.Reject(field, "invalid key %q (want none, value, or csv:N with N >= 0)", v.Value())
	return KeyNone, 0
}

// security builds the sasl and tls sections of a Kafka connector.
func security(s *jobspec.Section, sasl *rawSASL, tls *rawTLS) Security {
	var sec Security
	if sasl != nil {
		sec.SASL = &SASL{
			Mechanism: s.Choice("sasl.mechanism", sasl.Mechanism, "SASL mechanism", "", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"),
		}
		sec.SASL.Username, _ = s.Text("sasl.username", sasl.Username)
		sec.SASL.Password, _ = s.Text("sasl.password", sasl.Password)
	}
	if tls != nil {
		sec.TLS = &TLS{
			CAFile:             s.OptionalText("tls.caFile", tls.CAFile),
			CertFile:           s.OptionalText("tls.certFile", tls.CertFile),
			KeyFile:            s.OptionalText("tls.keyFile", tls.KeyFile),
			ServerName:         s.OptionalText("tls.serverName", tls.ServerName),
			InsecureSkipVerify: s.Bool("tls.insecureSkipVerify", tls.InsecureSkipVerify, false),
		}
		if tls.CertFile.IsSet() != tls.KeyFile.IsSet() {
			s.Add("tls", "certFile and keyFile go together")
		}
	}
	return sec
}

// Bounded implements jobspec.SourceSpec: a Kafka source never ends.
func (k *SourceSpec) Bounded() bool { return false }

// OpenSource implements connector.SourceOpener.
func (k *SourceSpec) OpenSource(split connector.SplitInfo, env connector.Env) (connector.Source, error) {
	cfg := SourceConfig{
		Brokers: k.Brokers, Topics: k.Topics, TopicPattern: k.TopicPattern, Group: k.Group,
		StartFrom: k.StartFrom, Format: k.Format, ReadUncommitted: k.ReadUncommitted,
		DiscoveryInterval: k.DiscoveryInterval, Security: k.Security, Logger: env.Logger,
	}
	if cfg.DiscoveryInterval == 0 {
		cfg.DiscoveryInterval = -1 // the spec's 0 is "only at the start"
	}
	return OpenSource(cfg, split)
}

// CheckJob implements jobspec.JobChecker. It enforces the bound of
// docs/connectors.md: a transaction opens right after one checkpoint's
// barrier and is committed when the next checkpoint completes, which may
// take its interval, the minimum pause and its whole timeout; a shorter
// transaction timeout lets the broker abort, and lose, what a completed
// checkpoint covers.
func (k *SinkSpec) CheckJob(j *jobspec.Job) (string, error) {
	c := j.Checkpoints
	if k.Semantic != ExactlyOnce || c == nil {
		return "", nil
	}
	if need := c.Interval + c.MinPause + c.Timeout; k.TransactionTimeout < need {
		return "transactionTimeout", fmt.Errorf("%v is less than checkpoints.interval + minPause + timeout (%v): the broker could abort a transaction before its checkpoint completes; raise it (up to the brokers' transaction.max.timeout.ms) or shorten the checkpoints",
			k.TransactionTimeout, need)
	}
	return "", nil
}

// OpenSink implements connector.SinkOpener: the sink of a job with
// checkpoints commits with them.
func (k *SinkSpec) OpenSink(split connector.SplitInfo, mode connector.SinkMode, env connector.Env) (connector.Sink, error) {
	return OpenSink(SinkConfig{
		Brokers: k.Brokers, Topic: k.Topic, Key: k.Key, Field: k.Field, Upsert: k.Upsert,
		ExactlyOnce: k.Semantic == ExactlyOnce, TransactionalIDPrefix: k.TransactionalIDPrefix,
		TransactionTimeout: k.TransactionTimeout, Security: k.Security, Logger: env.Logger,
	}, split, mode.Checkpointed, mode.Restored)
}

// LocalPaths implements jobspec.LocalPather: the TLS files a source reads.
func (s *SourceSpec) LocalPaths() []jobspec.LocalPath { return s.Security.localPaths() }

// LocalPaths implements jobspec.LocalPather: the TLS files a sink reads.
func (s *SinkSpec) LocalPaths() []jobspec.LocalPath { return s.Security.localPaths() }

// localPaths returns the files that s names, by their fields.
func (s Security) localPaths() []jobspec.LocalPath {
	if s.TLS == nil {
		return nil
	}
	var out []jobspec.LocalPath
	for _, f := range []struct{ field, path string }{
		{"tls.caFile", s.TLS.CAFile}, {"tls.certFile", s.TLS.CertFile}, {"tls.keyFile", s.TLS.KeyFile},
	} {
		if f.path != "" {
			out = append(out, jobspec.LocalPath{Field: f.field, Path: f.path})
		}
	}
	return out
}
