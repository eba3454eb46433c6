package taskmanager

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// TestRedactLogger checks that a task's logger hides a secret parameter's
// value wherever a log line may hold it — message, text, error, group and
// the attributes of With — and leaves the other values as they are.
func TestRedactLogger(t *testing.T) {
	const marker = "s3cr3t-MARKER-91ab"
	req := &floev1.DeployTaskRequest{
		JobSpec: []byte("name: j\nparams: {apiKey: {secret: true}}\n" +
			"source: {type: file, uid: in, path: /in}\nsink: {type: stdout, uid: out}\n"),
		Params: map[string]string{"apiKey": marker},
	}
	var buf bytes.Buffer
	log := redactLogger(slog.New(slog.NewTextHandler(&buf, nil)), redactor(req))
	log.With("with", "w-"+marker).WithGroup("g").Warn("guest says "+marker,
		"text", marker, "err", errors.New("open /x/"+marker), "n", 42,
		slog.Group("inner", "deep", marker))
	got := buf.String()
	if strings.Contains(got, marker) {
		t.Errorf("the log line shows the secret:\n%s", got)
	}
	for _, want := range []string{`msg="guest says [secret]"`, `with=w-[secret]`, `g.text=[secret]`,
		`g.err="open /x/[secret]"`, `g.n=42`, `g.inner.deep=[secret]`} {
		if !strings.Contains(got, want) {
			t.Errorf("the log line lacks %s:\n%s", want, got)
		}
	}
}
