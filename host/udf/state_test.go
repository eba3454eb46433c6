package udf

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/storage/keygroup"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/state"
)

// keyed adapts storage/state to Keyed, as the task runtime does.
type keyed struct{ *state.Backend }

func (k keyed) Value(ns string) (ValueState, error) { return k.Backend.Value(ns) }
func (k keyed) List(ns string) (ListState, error)   { return k.Backend.List(ns) }
func (k keyed) Map(ns string) (MapState, error)     { return k.Backend.Map(ns) }

func keyedBatch(pairs ...string) *record.Batch {
	var b record.Batch
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		b.AppendKeyed([]byte(k), []byte(v), 1, keygroup.Of([]byte(k), 128))
	}
	return &b
}

func TestKeyedStateOfEveryKind(t *testing.T) {
	e := newEngine(t, Config{})
	st := keyed{state.New(memkv.New())}
	in := instance(t, e, InstanceConfig{Function: "state", Operator: "op", Keyed: st, KeyedInput: true})
	steps := []struct {
		in   []string
		want []string
	}{
		{[]string{"a=x", "b=x", "a=y", "a=x"}, []string{"a:1:1:1", "b:1:1:1", "a:2:2:2", "a:3:3:2"}},
		// State outlives a batch, and keys stay apart.
		{[]string{"b=z", "a=clear", "a=x"}, []string{"b:2:2:2", "a:cleared", "a:1:1:1"}},
	}
	for i, s := range steps {
		var out record.Batch
		if err := in.Process(context.Background(), keyedBatch(s.in...), &out); err != nil {
			t.Fatal(err)
		}
		if got := values(&out); fmt.Sprint(got) != fmt.Sprint(s.want) {
			t.Fatalf("step %d: got %q, want %q", i, got, s.want)
		}
	}
	infos := in.States()
	if len(infos) != 3 || infos[0].Name != "seen" || !infos[0].Queryable || infos[0].Type != TypeInt64 || infos[0].Namespace != "op/seen" {
		t.Fatalf("declared states %+v", infos)
	}
}

func TestKeyedStateInANonKeyedOperatorTraps(t *testing.T) {
	e := newEngine(t, Config{})
	in := instance(t, e, InstanceConfig{Function: "state", Operator: "op"})
	var out record.Batch
	err := in.Process(context.Background(), batchOf("x"), &out)
	if err == nil || !strings.Contains(err.Error(), "put a keyBy before it") {
		t.Fatalf("got %v", err)
	}
}

func TestStatePointsComeOnlyInProcessBetweenStateOperations(t *testing.T) {
	e := newEngine(t, Config{})
	st := keyed{state.New(memkv.New())}
	points := 0
	in := instance(t, e, InstanceConfig{Function: "state", Operator: "op", Keyed: st, KeyedInput: true,
		StatePoint: func() { points++ }})
	if points != 0 {
		t.Fatalf("%d state points while opening", points)
	}
	var out record.Batch
	// The "state" function reads and writes a value, a list and a map for
	// each record: at least three state operations each.
	if err := in.Process(context.Background(), keyedBatch("a=x", "b=x", "a=y", "a=x"), &out); err != nil {
		t.Fatal(err)
	}
	if points < 3*4 {
		t.Fatalf("%d state points for 4 records", points)
	}
}
