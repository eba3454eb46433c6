package udf

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/wasmbuild"
)

var (
	misbehaveOnce sync.Once
	misbehaveC    []byte
	misbehaveErr  error
)

// cModule returns udfs/testops/c built from source with its build.sh.
func cModule(t *testing.T) []byte {
	t.Helper()
	misbehaveOnce.Do(func() {
		root, err := wasmbuild.RepoRoot()
		if err != nil {
			misbehaveErr = err
			return
		}
		dir, err := os.MkdirTemp("", "floe-misbehave")
		if err != nil {
			misbehaveErr = err
			return
		}
		defer os.RemoveAll(dir)
		out := filepath.Join(dir, "misbehave.wasm")
		cmd := exec.Command("sh", filepath.Join(root, "udfs", "testops", "c", "build.sh"), out)
		if b, err := cmd.CombinedOutput(); err != nil {
			misbehaveErr = fmt.Errorf("building udfs/testops/c: %v\n%s", err, b)
			return
		}
		misbehaveC, misbehaveErr = os.ReadFile(out)
	})
	if misbehaveErr != nil {
		t.Fatal(misbehaveErr)
	}
	return misbehaveC
}

// cInstance instantiates a function of the C test module.
func cInstance(t *testing.T, e *Engine, cfg InstanceConfig) *Instance {
	t.Helper()
	m, err := e.Compile(context.Background(), "misbehave", cModule(t))
	if err != nil {
		t.Fatal(err)
	}
	in, err := m.Instantiate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(context.Background()) })
	return in
}

// mustFail checks that err is a *UDFError that wraps target (unless nil)
// and says every one of want.
func mustFail(t *testing.T, err, target error, want ...string) *UDFError {
	t.Helper()
	var ue *UDFError
	if !errors.As(err, &ue) {
		t.Fatalf("error %v (%T), want a *UDFError", err, err)
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("error %q does not wrap %q", err, target)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	return ue
}

// TestGoGuestsMeetTheCaps runs the Go test module's misbehaving functions
// on one engine with small caps (compiling the Go module takes long under
// -race).
func TestGoGuestsMeetTheCaps(t *testing.T) {
	const callCap, recordCap = 4 << 20, 1 << 20
	var log syncBuffer
	e := newEngine(t, Config{MaxCallOutput: callCap, MaxRecordSize: recordCap, LogLinesPerSecond: 50, Log: &log})
	m, err := e.Compile(context.Background(), "testops", testops)
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{now: time.Unix(1000, 0)}
	run := func(t *testing.T, function string, batch *record.Batch) (*Instance, *record.Batch, error) {
		in, err := m.Instantiate(context.Background(), InstanceConfig{Function: function, Operator: "op", CallTimeout: time.Minute, Now: c.Now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { in.Close(context.Background()) })
		var out record.Batch
		return in, &out, in.Process(context.Background(), batch, &out)
	}

	t.Run("emit loop", func(t *testing.T) {
		_, out, err := run(t, "emit-loop", batchOf("go"))
		mustFail(t, err, ErrOutputTooLarge, `module "testops" function "emit-loop"`, fmt.Sprintf("more than %d bytes in one call", callCap))
		if got := int64(out.Len()) * (recordOverhead + 1024); got > callCap {
			t.Errorf("the host kept %d bytes of output, over the cap of %d", got, callCap)
		}
	})
	t.Run("huge record emitted", func(t *testing.T) {
		_, _, err := run(t, "huge-record", batchOf("go"))
		mustFail(t, err, ErrRecordTooLarge, `module "testops" function "huge-record"`, "emitted a record of 17825792 bytes", "cap of 1048576 bytes per record")
	})
	t.Run("huge record handed", func(t *testing.T) {
		_, out, err := run(t, "upper", batchOf("fine", strings.Repeat("x", recordCap+1)))
		ue := mustFail(t, err, ErrRecordTooLarge, `module "testops" function "upper"`, "input record of 1048577 bytes", `record 1: "xxx`)
		if ue.Record != 1 {
			t.Errorf("record %d named, want 1", ue.Record)
		}
		if out.Len() != 0 {
			t.Errorf("the guest ran: %d records out", out.Len())
		}
	})
	t.Run("stdout flood", func(t *testing.T) {
		in, _, err := run(t, "stdout-flood", batchOf("go"))
		if err != nil {
			t.Fatal(err)
		}
		c.now = c.now.Add(time.Second)
		if err := in.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSpace(log.String()), "\n")
		if len(got) != 51 || !strings.Contains(got[50], "dropped 99950 guest log lines") {
			t.Fatalf("%d lines written to the log, the last %q; want 50 and a count of the dropped", len(got), got[len(got)-1])
		}
	})
}

func TestTableGrowthIsCappedByTheMemoryCap(t *testing.T) {
	e := newEngine(t, Config{MaxMemory: 64 << 20})
	in := cInstance(t, e, InstanceConfig{Function: "table-grow", Operator: "op"})
	var out record.Batch
	err := in.Process(context.Background(), batchOf("go"), &out)
	// 64 MiB / 16 at 8 bytes an entry leaves room for 524,288 entries: the
	// first million is refused.
	mustFail(t, err, nil, `module "misbehave" function "table-grow"`, "table.grow refused after 0 entries added")
}

func TestFailMessagesAreCut(t *testing.T) {
	e := newEngine(t, Config{})
	in := cInstance(t, e, InstanceConfig{Function: "huge-fail", Operator: "op"})
	var out record.Batch
	err := in.Process(context.Background(), batchOf("go"), &out)
	mustFail(t, err, nil, `module "misbehave" function "huge-fail"`, "xxx… (8388608 bytes)")
	if n := len(err.Error()); n > MaxMessage+4096 {
		t.Errorf("error of %d bytes, want at most the cap of %d and a little", n, MaxMessage)
	}
}

// lines is a slog handler that keeps the messages it is handed.
type lines struct {
	mu   sync.Mutex
	msgs []string
}

func (l *lines) Enabled(context.Context, slog.Level) bool { return true }
func (l *lines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	return nil
}
func (l *lines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *lines) WithGroup(string) slog.Handler      { return l }

func (l *lines) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.msgs
	l.msgs = nil
	return m
}

// clock is a processing-time clock that moves only when told.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func TestGuestLogsAreRateLimitedAndCut(t *testing.T) {
	e := newEngine(t, Config{LogLinesPerSecond: 100})
	h, c := &lines{}, &clock{now: time.Unix(1000, 0)}
	in := cInstance(t, e, InstanceConfig{Function: "log-flood", Operator: "op", Logger: slog.New(h), Now: c.Now})
	var out record.Batch
	// Each record logs 100,000 lines; a second's worth, 100, gets through.
	for round := 0; round < 3; round++ {
		if err := in.Process(context.Background(), batchOf("go"), &out); err != nil {
			t.Fatal(err)
		}
		got := h.take()
		want := 100
		if round > 0 {
			// The drops of the round before are reported first.
			want++
			if w := "dropped 99900 guest log lines (9990000 bytes) over the rate limit of 100 lines"; !strings.Contains(got[0], w) {
				t.Errorf("round %d: first line %q, want it to say %q", round, got[0], w)
			}
		}
		if len(got) != want {
			t.Fatalf("round %d: %d lines logged, want %d", round, len(got), want)
		}
		c.now = c.now.Add(time.Second)
	}

	huge := cInstance(t, e, InstanceConfig{Function: "huge-log", Operator: "op", Logger: slog.New(h), Now: c.Now})
	if err := huge.Process(context.Background(), batchOf("go"), &out); err != nil {
		t.Fatal(err)
	}
	got := h.take()
	if len(got) != 1 || len(got[0]) > MaxMessage+100 || !strings.HasSuffix(got[0], "xxx… (1048576 bytes)") {
		t.Fatalf("a line of 1 MiB was logged as %d lines, the first of %d bytes ending %q",
			len(got), len(got[0]), got[0][max(0, len(got[0])-40):])
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
