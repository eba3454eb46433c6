package udf

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/storage/kv/memkv"
	"github.com/floe-stream/floe/storage/state"
)

// TestTwoInputsShareOneInstance runs a two-input operator whose functions
// are the same keyed "state" function: batches of either input reach the
// one instance, so each key's count goes on across inputs.
func TestTwoInputsShareOneInstance(t *testing.T) {
	e := newEngine(t, Config{})
	st := keyed{state.New(memkv.New())}
	in := instance(t, e, InstanceConfig{Function: "state", Function2: "state", Operator: "op", Keyed: st, KeyedInput: true})
	steps := []struct {
		input int
		in    []string
		want  []string
	}{
		{0, []string{"a=x", "b=x"}, []string{"a:1:1:1", "b:1:1:1"}},
		{1, []string{"a=y"}, []string{"a:2:2:2"}},
		{0, []string{"a=x", "b=z"}, []string{"a:3:3:2", "b:2:2:2"}},
		{1, []string{"b=clear"}, []string{"b:cleared"}},
	}
	for i, s := range steps {
		var out record.Batch
		if err := in.ProcessInput(context.Background(), s.input, keyedBatch(s.in...), &out); err != nil {
			t.Fatal(err)
		}
		if got := values(&out); fmt.Sprint(got) != fmt.Sprint(s.want) {
			t.Fatalf("step %d (input %d): got %q, want %q", i, s.input, got, s.want)
		}
	}
}

// TestTwoInputsRunTheirOwnFunction runs a different function per input, and
// names the second input's function when it fails.
func TestTwoInputsRunTheirOwnFunction(t *testing.T) {
	e := newEngine(t, Config{})
	in := instance(t, e, InstanceConfig{Function: "upper", Function2: "misbehave", Operator: "op"})
	var out record.Batch
	if err := in.ProcessInput(context.Background(), 0, batchOf("ab"), &out); err != nil {
		t.Fatal(err)
	}
	if err := in.ProcessInput(context.Background(), 1, batchOf("cd"), &out); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(values(&out)); got != "[AB cd]" {
		t.Fatalf("got %s, want [AB cd]", got)
	}
	err := in.ProcessInput(context.Background(), 1, batchOf("ok", "error"), &out)
	var ue *UDFError
	if !errors.As(err, &ue) || ue.Function != "misbehave" || ue.Export != "floe_process2" || ue.Record != 1 {
		t.Fatalf("error %#v, want misbehave's floe_process2 failing record 1", err)
	}
}

// TestOneInputOperatorRefusesASecondInput checks that a batch of input 1
// reaches no function of an operator opened with one.
func TestOneInputOperatorRefusesASecondInput(t *testing.T) {
	e := newEngine(t, Config{})
	in := instance(t, e, InstanceConfig{Function: "upper", Operator: "op"})
	var out record.Batch
	if err := in.ProcessInput(context.Background(), 1, batchOf("ab"), &out); err == nil {
		t.Fatal("input 1 of a one-input operator was processed")
	}
}
