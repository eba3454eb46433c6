package lifecycle

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestExceptionsBound checks that a job keeps the last MaxExceptions
// failures and counts the rest, and cuts what each failure holds.
func TestExceptionsBound(t *testing.T) {
	for _, tc := range []struct {
		added, kept, dropped int
	}{
		{0, 0, 0},
		{1, 1, 0},
		{MaxExceptions, MaxExceptions, 0},
		{MaxExceptions + 1, MaxExceptions, 1},
		{3*MaxExceptions + 7, MaxExceptions, 2*MaxExceptions + 7},
	} {
		t.Run(fmt.Sprint(tc.added), func(t *testing.T) {
			var x Exceptions
			for i := range tc.added {
				x.add(Exception{Attempt: i + 1, Message: "m"})
			}
			if len(x.List) != tc.kept || x.Dropped != tc.dropped {
				t.Fatalf("kept %d, dropped %d; want %d and %d", len(x.List), x.Dropped, tc.kept, tc.dropped)
			}
			if tc.kept > 0 && x.List[len(x.List)-1].Attempt != tc.added {
				t.Errorf("the newest kept is attempt %d, want %d", x.List[len(x.List)-1].Attempt, tc.added)
			}
			if tc.kept > 0 && x.List[0].Attempt != tc.dropped+1 {
				t.Errorf("the oldest kept is attempt %d, want %d", x.List[0].Attempt, tc.dropped+1)
			}
		})
	}
}

func TestExceptionCut(t *testing.T) {
	var x Exceptions
	key := []byte(strings.Repeat("k", 1000))
	x.add(Exception{Message: strings.Repeat("é", MaxExceptionMessage), Failure: &Failure{Key: key, KeySize: len(key)}})
	e := x.List[0]
	if want := fmt.Sprintf("… (%d bytes)", 2*MaxExceptionMessage); !strings.HasSuffix(e.Message, want) || len(e.Message) > MaxExceptionMessage+len(want) {
		t.Errorf("message of %d bytes cut to %d bytes ending %q; want at most %d ending %q", 2*MaxExceptionMessage, len(e.Message), e.Message[len(e.Message)-20:], MaxExceptionMessage, want)
	}
	if !strings.HasPrefix(e.Message, "éé") || strings.Contains(e.Message, "\uFFFD") {
		t.Errorf("message cut inside a character")
	}
	if len(e.Failure.Key) != maxExceptionBytes || e.Failure.KeySize != len(key) {
		t.Errorf("key excerpt of %d bytes (size %d), want %d (size %d)", len(e.Failure.Key), e.Failure.KeySize, maxExceptionBytes, len(key))
	}
	if &e.Failure.Key[0] == &key[0] {
		t.Errorf("the excerpt shares the caller's bytes")
	}
}

// TestExceptionsSnapshot checks that a job's failures, the dropped count
// included, survive MarshalState and RestoreState.
func TestExceptionsSnapshot(t *testing.T) {
	epoch := time.Unix(1_000_000, 0).UTC()
	m := New(Config{HeartbeatInterval: time.Second, HeartbeatTimeout: 10 * time.Second})
	sub := Submission{ID: "j", Plan: testPlan([]int{1})}
	sub.Strategy.Type, sub.Strategy.Attempts = "fixedDelay", 1000
	m.Register(epoch, "addr", "host", 1, "", nil)
	m.Submit(epoch, sub)
	now := epoch
	for i := range MaxExceptions + 3 {
		now = now.Add(time.Second)
		m.Heartbeat(now, "tm-1")
		m.Tick(now)
		id := TaskID{Job: "j", Attempt: m.Job("j").Attempt, Stage: 0, Subtask: 0}
		f := &Failure{Operator: "op", Module: "mod", Function: "fn", Key: []byte(fmt.Sprint("key-", i)), KeySize: 5, HasRecord: true}
		m.TaskStatus(now, "tm-1", id, "FAILED", fmt.Sprint("failure ", i), nil, f)
	}
	want := m.Job("j").Exceptions
	if len(want.List) != MaxExceptions || want.Dropped != 3 {
		t.Fatalf("the job kept %d failures and dropped %d; want %d and 3", len(want.List), want.Dropped, MaxExceptions)
	}
	b, err := m.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	r := New(Config{HeartbeatInterval: time.Second, HeartbeatTimeout: 10 * time.Second})
	if err := r.RestoreState(b, func(string) (Submission, error) { return sub, nil }); err != nil {
		t.Fatal(err)
	}
	if got := r.Job("j").Exceptions; !reflect.DeepEqual(got, want) {
		t.Errorf("restored failures differ:\n%+v\nwant\n%+v", got.List[len(got.List)-1], want.List[len(want.List)-1])
	}
}
