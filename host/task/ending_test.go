package task

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector/file"
	"github.com/floe-stream/floe/host/exchange"
	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/internal/jobspec"
)

// TestEndingSinkAcknowledgesWithItsFinalOutput runs a sink task of a job
// whose other branches go on after its input ended: triggered directly, it
// acknowledges each checkpoint as finished with the sealed rest of its
// output and no keyed state, takes a repeated trigger only once, commits
// that output once a checkpoint holding it completes, and returns at the
// job's final commit.
func TestEndingSinkAcknowledgesWithItsFinalOutput(t *testing.T) {
	dir := t.TempDir()
	p := inboxPlan([]int{1}, nil, coOp{broadcast: -1})
	p.Stages[1].Outputs = nil
	p.Stages[1].Sink = &jobspec.Sink{Type: "file", UID: "out", Spec: &file.SinkSpec{Path: dir}}
	p.Stages = p.Stages[:2]
	in := &scriptedInbox{senders: 1, asks: make(chan struct{}), msgs: make(chan exchange.Message)}
	acks := make(chan ckmeta.SubtaskState, 8)
	ending := make(chan struct{})
	env := Env{
		Checkpoints: &Checkpointing{
			TempDir: t.TempDir(),
			Ack:     func(id int64, st ckmeta.SubtaskState) { acks <- st },
			Decline: func(id int64, reason string) { t.Errorf("declined %d: %s", id, reason) },
			Ending:  func() { close(ending) },
		},
		Now: time.Now,
	}
	// A task takes triggers once it is open, as a task manager sends them
	// only to a started task.
	started := make(chan struct{})
	env.Started = func(*Task) { close(started) }
	task := New(Spec{Plan: p, Stage: 1}, env, IO{In: in})
	done := make(chan error, 1)
	go func() { done <- task.Run(context.Background()) }()
	<-started
	send := func(m exchange.Message) {
		<-in.asks
		in.msgs <- m
	}
	data := func(vs ...string) exchange.Message {
		b := exchange.GetBatch()
		for _, v := range vs {
			b.Append(nil, []byte(v), 0)
		}
		return exchange.Message{Batch: b}
	}

	if task.TriggerCheckpoint(1) {
		t.Fatal("a running task without a source took a trigger")
	}
	send(data("a", "b"))
	if n := task.Metrics.SnapshotNanos.Load(); n != 0 {
		t.Fatalf("%d ns spent taking snapshots before the first barrier", n)
	}
	send(exchange.Message{Barrier: 1})
	if st := <-acks; st.Finished || st.Sink == nil {
		t.Fatalf("checkpoint 1 acknowledged as %+v, want a running sink's state", st)
	}
	// The metric the autoscaler leaves out of busy time.
	if n := task.Metrics.SnapshotNanos.Load(); n <= 0 {
		t.Errorf("no time counted taking snapshot 1 (%d ns)", n)
	}
	send(data("c"))
	send(exchange.Message{End: true})
	<-ending

	if !task.TriggerCheckpoint(2) || !task.TriggerCheckpoint(2) || !task.TriggerCheckpoint(1) {
		t.Fatal("the ending task refused a trigger")
	}
	st := <-acks
	if !st.Finished || len(st.Keyed) > 0 || st.Source != nil {
		t.Fatalf("checkpoint 2 acknowledged as %+v, want finished, with no keyed or source state", st)
	}
	var sink struct{ Pending []string }
	if err := json.Unmarshal(st.Sink, &sink); err != nil || len(sink.Pending) != 2 {
		t.Fatalf("checkpoint 2's sink state %s (%v), want the pending files of checkpoint 1 and of the end", st.Sink, err)
	}
	if !task.TriggerCheckpoint(3) {
		t.Fatal("the ending task refused trigger 3")
	}
	if again := <-acks; string(again.Sink) != string(st.Sink) || !again.Finished {
		t.Fatalf("checkpoint 3 acknowledged as %+v, want the same final state as checkpoint 2", again)
	}
	select {
	case st := <-acks:
		t.Fatalf("a repeated trigger was taken again: %+v", st)
	default:
	}

	// Checkpoint 1 completes: its part is committed. Checkpoint 2, which
	// holds the rest, completes: the rest is committed before the job ends.
	task.NotifyCheckpointComplete(1)
	task.NotifyCheckpointComplete(2)
	waitCommitted(t, dir, "a b c")
	task.NotifyCheckpointComplete(ckmeta.Final)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitCommitted(t, dir, "a b c")
}

// waitCommitted waits until the committed part files in dir hold the lines
// of want, in order, and nothing is left uncommitted. The task commits in
// its own goroutine; the minute is a bound on a hang, not a measure.
func waitCommitted(t *testing.T, dir, want string) {
	t.Helper()
	var got []string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		got = nil
		names, _ := filepath.Glob(filepath.Join(dir, "part-*"))
		slices.Sort(names)
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, strings.Fields(string(b))...)
		}
		hidden, _ := filepath.Glob(filepath.Join(dir, ".part-*"))
		if strings.Join(got, " ") == want && len(hidden) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("committed %q, want %q", got, want)
}
