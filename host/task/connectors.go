package task

import (
	"fmt"
	"log/slog"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/file"
	"github.com/floe-stream/floe/host/connector/generator"
	"github.com/floe-stream/floe/host/connector/kafka"
	"github.com/floe-stream/floe/host/connector/nexmark"
	"github.com/floe-stream/floe/host/connector/stdout"
	"github.com/floe-stream/floe/internal/jobspec"
)

// openSource opens subtask split's share of the job's source.
func openSource(s *jobspec.Source, split connector.SplitInfo, log *slog.Logger) (connector.Source, error) {
	switch {
	case s.File != nil:
		return file.OpenSource(file.SourceConfig{Path: s.File.Path, Rate: s.File.Rate, Follow: s.File.Follow}, split)
	case s.Generator != nil:
		g := s.Generator
		return generator.NewSource(generator.Config{
			Count: g.Count, Rate: g.Rate, Kind: string(g.Kind), Keys: int(g.Keys), Size: g.Size,
		}, split)
	case s.Nexmark != nil:
		n := s.Nexmark
		return nexmark.NewSource(nexmark.Config{
			Count: n.Count, Rate: n.Rate, EventsPerSecond: n.EventsPerSecond, Seed: n.Seed,
		}, split)
	case s.Kafka != nil:
		return kafka.OpenSource(kafkaSourceConfig(s.Kafka, log), split)
	}
	return nil, fmt.Errorf("source %s: unsupported type %q", s.UID, s.Type)
}

// openSink opens subtask split's part of the job's sink: for a file sink of
// a job with checkpoints, the transactional one.
func openSink(s *jobspec.Sink, split connector.SplitInfo, out *stdout.Writer, checkpointed, restored bool, log *slog.Logger) (connector.Sink, error) {
	switch s.Type {
	case jobspec.SinkFile:
		if checkpointed {
			return file.OpenTransactionalSink(file.SinkConfig{Path: s.File.Path}, split, restored)
		}
		return file.OpenSink(file.SinkConfig{Path: s.File.Path}, split)
	case jobspec.SinkStdout:
		return stdout.NewSink(stdout.Config{Out: out})
	case jobspec.SinkKafka:
		return kafka.OpenSink(kafkaSinkConfig(s.Kafka, log), split, checkpointed, restored)
	}
	return nil, fmt.Errorf("sink %s: unsupported type %q", s.UID, s.Type)
}

// kafkaSourceConfig converts a job spec's Kafka source.
func kafkaSourceConfig(k *jobspec.KafkaSource, log *slog.Logger) kafka.SourceConfig {
	cfg := kafka.SourceConfig{
		Brokers: k.Brokers, Topics: k.Topics, TopicPattern: k.TopicPattern, Group: k.Group,
		StartFrom: kafka.StartFrom{Kind: kafka.StartKind(k.StartFrom.Kind), Millis: k.StartFrom.Millis},
		Format:    kafka.Format(k.Format), ReadUncommitted: k.ReadUncommitted,
		DiscoveryInterval: k.DiscoveryInterval, Security: kafkaSecurity(k.Security), Logger: log,
	}
	if cfg.DiscoveryInterval == 0 {
		cfg.DiscoveryInterval = -1 // the spec's 0 is "only at the start"
	}
	return cfg
}

// kafkaSinkConfig converts a job spec's Kafka sink.
func kafkaSinkConfig(k *jobspec.KafkaSink, log *slog.Logger) kafka.SinkConfig {
	return kafka.SinkConfig{
		Brokers: k.Brokers, Topic: k.Topic, Key: kafka.KeyKind(k.Key.Kind), Field: k.Key.Field,
		ExactlyOnce: k.Semantic == jobspec.KafkaExactlyOnce, TransactionalIDPrefix: k.TransactionalIDPrefix,
		TransactionTimeout: k.TransactionTimeout, Security: kafkaSecurity(k.Security), Logger: log,
	}
}

func kafkaSecurity(s jobspec.KafkaSecurity) kafka.Security {
	var out kafka.Security
	if a := s.SASL; a != nil {
		out.SASL = &kafka.SASL{Mechanism: a.Mechanism, Username: a.Username, Password: a.Password}
	}
	if t := s.TLS; t != nil {
		out.TLS = &kafka.TLS{CAFile: t.CAFile, CertFile: t.CertFile, KeyFile: t.KeyFile, ServerName: t.ServerName,
			InsecureSkipVerify: t.InsecureSkipVerify}
	}
	return out
}
