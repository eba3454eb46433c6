package taskmanager

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/floe-stream/floe/internal/jobspec"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// redactor returns what hides the values of the secret parameters of req's
// job in a message this task manager logs or reports. A spec that does not
// parse hides nothing here: the parser's own messages hide them.
func redactor(req *floev1.DeployTaskRequest) func(string) string {
	job, err := jobspec.Parse(req.JobSpec, "/", req.Params)
	if err != nil {
		return func(s string) string { return s }
	}
	return job.Redact
}

// redactHandler hides the values of a job's secret parameters in what its
// tasks, their connectors and their guests log: in the message and in every
// attribute that is text or prints as text (an error, say).
type redactHandler struct {
	slog.Handler
	redact func(string) string
}

// redactLogger returns log with redact applied to everything it logs.
func redactLogger(log *slog.Logger, redact func(string) string) *slog.Logger {
	return slog.New(redactHandler{log.Handler(), redact})
}

func (h redactHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.redact(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h redactHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i] = h.attr(a)
	}
	return redactHandler{h.Handler.WithAttrs(out), h.redact}
}

func (h redactHandler) WithGroup(name string) slog.Handler {
	return redactHandler{h.Handler.WithGroup(name), h.redact}
}

// attr returns a with its value redacted. A value of another kind than text
// or group is replaced by its redacted text only when that text differs.
func (h redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.redact(v.String()))
	case slog.KindGroup:
		group := v.Group()
		out := make([]any, len(group))
		for i, g := range group {
			out[i] = h.attr(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		text := fmt.Sprint(v.Any())
		if r := h.redact(text); r != text {
			return slog.String(a.Key, r)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
