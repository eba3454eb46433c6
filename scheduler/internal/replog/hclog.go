package replog

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// levelTrace is slog's level for hclog's Trace, below Debug.
const levelTrace = slog.LevelDebug - 4

// hcLogger presents a *slog.Logger as the hclog.Logger that raft logs to.
type hcLogger struct {
	l    *slog.Logger
	name string
}

var _ hclog.Logger = (*hcLogger)(nil)

// newHCLogger returns an hclog.Logger that writes to l, or discards
// everything when l is nil.
func newHCLogger(l *slog.Logger) *hcLogger {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	return &hcLogger{l: l.With("component", "raft"), name: "raft"}
}

func toSlog(level hclog.Level) slog.Level {
	switch level {
	case hclog.Trace:
		return levelTrace
	case hclog.Debug:
		return slog.LevelDebug
	case hclog.Warn:
		return slog.LevelWarn
	case hclog.Error:
		return slog.LevelError
	}
	return slog.LevelInfo
}

// args turns hclog's key-value pairs into slog's, rendering hclog.Format
// values the way hclog does.
func args(kv []any) []any {
	out := make([]any, len(kv))
	for i, v := range kv {
		if f, ok := v.(hclog.Format); ok && len(f) > 0 {
			if s, ok := f[0].(string); ok {
				v = fmt.Sprintf(s, f[1:]...)
			}
		}
		out[i] = v
	}
	return out
}

func (h *hcLogger) Log(level hclog.Level, msg string, kv ...any) {
	if firstElection(level, msg, kv) {
		level = hclog.Info
	}
	h.l.Log(context.Background(), toSlog(level), msg, args(kv)...)
}

// firstElection reports raft's warning that a follower heard no leader
// when no leader has ever been known: the first election of a group, which
// every start goes through, is no cause for a warning.
func firstElection(level hclog.Level, msg string, kv []any) bool {
	if level != hclog.Warn || msg != "heartbeat timeout reached, starting election" {
		return false
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == "last-leader-addr" {
			return fmt.Sprint(kv[i+1]) == ""
		}
	}
	return false
}

func (h *hcLogger) Trace(msg string, kv ...any) { h.Log(hclog.Trace, msg, kv...) }
func (h *hcLogger) Debug(msg string, kv ...any) { h.Log(hclog.Debug, msg, kv...) }
func (h *hcLogger) Info(msg string, kv ...any)  { h.Log(hclog.Info, msg, kv...) }
func (h *hcLogger) Warn(msg string, kv ...any)  { h.Log(hclog.Warn, msg, kv...) }
func (h *hcLogger) Error(msg string, kv ...any) { h.Log(hclog.Error, msg, kv...) }

func (h *hcLogger) enabled(level hclog.Level) bool {
	return h.l.Enabled(context.Background(), toSlog(level))
}

func (h *hcLogger) IsTrace() bool { return h.enabled(hclog.Trace) }
func (h *hcLogger) IsDebug() bool { return h.enabled(hclog.Debug) }
func (h *hcLogger) IsInfo() bool  { return h.enabled(hclog.Info) }
func (h *hcLogger) IsWarn() bool  { return h.enabled(hclog.Warn) }
func (h *hcLogger) IsError() bool { return h.enabled(hclog.Error) }

func (h *hcLogger) ImpliedArgs() []any { return nil }

func (h *hcLogger) With(kv ...any) hclog.Logger {
	return &hcLogger{l: h.l.With(args(kv)...), name: h.name}
}

func (h *hcLogger) Name() string { return h.name }

// Named and ResetNamed name a sub-logger, as the "logger" attribute.
func (h *hcLogger) Named(name string) hclog.Logger {
	return h.ResetNamed(h.name + "." + name)
}

func (h *hcLogger) ResetNamed(name string) hclog.Logger {
	return &hcLogger{l: h.l.With("logger", name), name: name}
}

// SetLevel does nothing: the slog handler decides what is logged.
func (h *hcLogger) SetLevel(hclog.Level) {}

func (h *hcLogger) GetLevel() hclog.Level {
	for _, lv := range []hclog.Level{hclog.Trace, hclog.Debug, hclog.Info, hclog.Warn, hclog.Error} {
		if h.enabled(lv) {
			return lv
		}
	}
	return hclog.Off
}

func (h *hcLogger) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(h.StandardWriter(opts), "", 0)
}

// StandardWriter logs each write as one message at Info, or at the level
// its "[LEVEL]" prefix names when opts asks to infer levels.
func (h *hcLogger) StandardWriter(opts *hclog.StandardLoggerOptions) io.Writer {
	infer := opts != nil && opts.InferLevels
	return writerFunc(func(p []byte) (int, error) {
		msg := strings.TrimSpace(string(p))
		level := hclog.Info
		if infer {
			level, msg = inferLevel(msg)
		}
		h.Log(level, msg)
		return len(p), nil
	})
}

func inferLevel(msg string) (hclog.Level, string) {
	for prefix, level := range map[string]hclog.Level{
		"[TRACE]": hclog.Trace, "[DEBUG]": hclog.Debug, "[INFO]": hclog.Info,
		"[WARN]": hclog.Warn, "[ERR]": hclog.Error, "[ERROR]": hclog.Error,
	} {
		if rest, ok := strings.CutPrefix(msg, prefix); ok {
			return level, strings.TrimSpace(rest)
		}
	}
	return hclog.Info, msg
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
