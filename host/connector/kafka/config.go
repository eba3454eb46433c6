package kafka

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/floe-stream/floe/host/connector"
)

// The defaults of the configs' optional fields.
const (
	// DefaultDiscoveryInterval is how often a source looks for new
	// partitions when its config leaves DiscoveryInterval zero.
	DefaultDiscoveryInterval = 30 * time.Second
	// DefaultTransactionTimeout is the transaction timeout of an
	// exactly-once sink whose config leaves it zero: the largest that a
	// Kafka broker accepts by default (transaction.max.timeout.ms).
	DefaultTransactionTimeout = 15 * time.Minute
	// DefaultDeliveryTimeout bounds how long a sink retries a record, and
	// how long Flush and PreCommit wait for the broker.
	DefaultDeliveryTimeout = 2 * time.Minute
	// DefaultRequestTimeout bounds the requests a source or sink makes
	// outside the record path: listing partitions, resolving start
	// offsets, committing group offsets, fencing and recovering
	// transactions.
	DefaultRequestTimeout = 30 * time.Second
	// Slots is the number of transactional ids of each subtask of an
	// exactly-once sink (see the package documentation).
	Slots = 8
)

// StartKind says where a source starts reading the partitions it finds when
// it starts without state.
type StartKind string

// The start kinds.
const (
	StartEarliest  StartKind = "earliest"
	StartLatest    StartKind = "latest"
	StartCommitted StartKind = "committed"
	StartTimestamp StartKind = "timestamp"
)

// StartFrom is a start position.
type StartFrom struct {
	Kind StartKind
	// Millis is the timestamp of StartTimestamp, in milliseconds since the
	// epoch: a partition starts at its first record at or after it.
	Millis int64
}

// Format is how a Kafka record becomes a Floe record's value.
type Format string

// The formats.
const (
	// FormatValue makes the Kafka record's value the record's value.
	FormatValue Format = "value"
	// FormatJSON makes the record's value a JSON object holding the Kafka
	// record's topic, partition, offset, timestamp, key, value and headers.
	FormatJSON Format = "json"
)

// SASL configures SASL authentication.
type SASL struct {
	// Mechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
	Mechanism string
	Username  string
	Password  string
}

// TLS configures TLS. The zero value uses the system's roots and no client
// certificate.
type TLS struct {
	// CAFile holds PEM root certificates to trust instead of the system's.
	CAFile string
	// CertFile and KeyFile hold a PEM client certificate and its key; both
	// or neither are set.
	CertFile, KeyFile string
	// ServerName overrides the name checked in the brokers' certificates.
	ServerName string
	// InsecureSkipVerify accepts any certificate: for tests only.
	InsecureSkipVerify bool
}

// Security is how a connector authenticates to the brokers. Nil fields mean
// plaintext, unauthenticated connections.
type Security struct {
	SASL *SASL
	TLS  *TLS
}

// SourceConfig configures a Kafka source.
type SourceConfig struct {
	// Brokers are the seed brokers, host:port.
	Brokers []string
	// Topics names the topics to read; TopicPattern is instead a regular
	// expression that a topic's whole name must match. Exactly one is set.
	Topics       []string
	TopicPattern string
	// Group is the consumer group that offsets are committed to when a
	// checkpoint completes, for monitoring, and that StartCommitted reads;
	// empty means none. The source never joins the group.
	Group     string
	StartFrom StartFrom
	Format    Format
	// ReadUncommitted makes the source read records of open and aborted
	// transactions too; by default it reads only committed records.
	ReadUncommitted bool
	// DiscoveryInterval is how often the source looks for new partitions; 0
	// means DefaultDiscoveryInterval and a negative value turns discovery
	// off after the first look.
	DiscoveryInterval time.Duration
	Security          Security
	// RequestTimeout bounds metadata and offset requests; 0 means
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// Clock paces discovery; nil means the system clock.
	Clock connector.Clock
	// Logger receives failures that do not stop the source, such as a
	// failed offset commit; nil discards them.
	Logger *slog.Logger
}

// validate reports the first problem of c.
func (c *SourceConfig) validate() error {
	switch {
	case len(c.Brokers) == 0:
		return errors.New("kafka source: no brokers")
	case (len(c.Topics) == 0) == (c.TopicPattern == ""):
		return errors.New("kafka source: set exactly one of topics and topic pattern")
	case c.StartFrom.Kind == StartCommitted && c.Group == "":
		return errors.New("kafka source: starting from committed offsets needs a group")
	}
	for _, t := range c.Topics {
		if t == "" || strings.ContainsAny(t, ", ") {
			return fmt.Errorf("kafka source: bad topic name %q", t)
		}
	}
	switch c.StartFrom.Kind {
	case "", StartEarliest, StartLatest, StartCommitted, StartTimestamp:
	default:
		return fmt.Errorf("kafka source: unknown start %q", c.StartFrom.Kind)
	}
	switch c.Format {
	case "", FormatValue, FormatJSON:
	default:
		return fmt.Errorf("kafka source: unknown format %q", c.Format)
	}
	return c.Security.validate()
}

// pattern compiles TopicPattern, anchored at both ends, or returns nil.
func (c *SourceConfig) pattern() (*regexp.Regexp, error) {
	if c.TopicPattern == "" {
		return nil, nil
	}
	re, err := regexp.Compile("^(?:" + c.TopicPattern + ")$")
	if err != nil {
		return nil, fmt.Errorf("kafka source: topic pattern: %w", err)
	}
	return re, nil
}

// KeyKind is how a sink derives a Kafka record's key from a Floe record.
type KeyKind string

// The key kinds.
const (
	// KeyNone writes records without a key.
	KeyNone KeyKind = "none"
	// KeyValue uses the whole value as the key.
	KeyValue KeyKind = "value"
	// KeyCSV uses one comma-separated field of the value as the key.
	KeyCSV KeyKind = "csv"
)

// SinkConfig configures a Kafka sink.
type SinkConfig struct {
	// Brokers are the seed brokers, host:port.
	Brokers []string
	// Topic receives the records.
	Topic string
	// Key says what the Kafka key of each record is; Field is the 0-based
	// field of KeyCSV. The Kafka value is always the record's whole value,
	// and its timestamp the record's, when it has one.
	Key   KeyKind
	Field int
	// Upsert, when set, writes rows keyed by their primary key instead
	// (Key must be none): a changelog's deletes become tombstones.
	Upsert *Upsert
	// ExactlyOnce writes through Kafka transactions, committed when the
	// checkpoint that covers them completes. Otherwise records are
	// flushed at each checkpoint: at least once.
	ExactlyOnce bool
	// TransactionalIDPrefix names the transactional ids of an exactly-once
	// sink: <prefix>-<subtask>-<slot>. It must be the same across restarts
	// of a job and unique among the jobs that run at once.
	TransactionalIDPrefix string
	// TransactionTimeout is the transaction timeout the sink asks the
	// broker for; 0 means DefaultTransactionTimeout.
	TransactionTimeout time.Duration
	// DeliveryTimeout bounds how long a record is retried; 0 means
	// DefaultDeliveryTimeout.
	DeliveryTimeout time.Duration
	// RequestTimeout bounds fencing and recovery requests; 0 means
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	Security       Security
	// Logger receives what a recovery finds amiss; nil discards it.
	Logger *slog.Logger
}

// validate reports the first problem of c.
func (c *SinkConfig) validate() error {
	switch {
	case len(c.Brokers) == 0:
		return errors.New("kafka sink: no brokers")
	case c.Topic == "":
		return errors.New("kafka sink: no topic")
	case c.ExactlyOnce && c.TransactionalIDPrefix == "":
		return fmt.Errorf("kafka sink %s: an exactly-once sink needs a transactional id prefix", c.Topic)
	case c.Key == KeyCSV && c.Field < 0:
		return fmt.Errorf("kafka sink %s: key field %d is negative", c.Topic, c.Field)
	case c.Upsert != nil && (c.Key != "" && c.Key != KeyNone):
		return fmt.Errorf("kafka sink %s: an upsert sink's key is its upsert key, not %s", c.Topic, c.Key)
	case c.Upsert != nil && len(c.Upsert.Key) == 0:
		return fmt.Errorf("kafka sink %s: an upsert sink needs key fields", c.Topic)
	case c.TransactionTimeout < 0 || c.DeliveryTimeout < 0 || c.RequestTimeout < 0:
		return fmt.Errorf("kafka sink %s: negative timeout", c.Topic)
	}
	switch c.Key {
	case "", KeyNone, KeyValue, KeyCSV:
	default:
		return fmt.Errorf("kafka sink %s: unknown key %q", c.Topic, c.Key)
	}
	return c.Security.validate()
}

func (s Security) validate() error {
	if s.SASL != nil {
		switch s.SASL.Mechanism {
		case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
		default:
			return fmt.Errorf("kafka: unknown SASL mechanism %q (want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)", s.SASL.Mechanism)
		}
	}
	if t := s.TLS; t != nil && (t.CertFile == "") != (t.KeyFile == "") {
		return errors.New("kafka: TLS needs both a certificate and a key file, or neither")
	}
	return nil
}

// orDefault returns d, or def when d is zero.
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// orDiscard returns l, or a logger that discards everything.
func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
