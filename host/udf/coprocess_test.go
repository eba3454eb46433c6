package udf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
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

// TestTwoInputOperatorNeedsProcess2 opens a coProcess on a module without
// floe_process2 (testops with the export renamed, as an SDK from before
// two-input operators builds it): the open fails saying why, and the same
// module still runs one-input operators.
func TestTwoInputOperatorNeedsProcess2(t *testing.T) {
	e := newEngine(t, Config{})
	old := bytes.ReplaceAll(testops, []byte("floe_process2"), []byte("floe_processX"))
	m, err := e.Compile(context.Background(), "old", old)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Instantiate(context.Background(), InstanceConfig{Function: "upper", Function2: "upper", Operator: "op"})
	var ue *UDFError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "exports no floe_process2") || ue.Module != "old" {
		t.Fatalf("error %v, want the module named and floe_process2 missing", err)
	}
	in, err := m.Instantiate(context.Background(), InstanceConfig{Function: "upper", Operator: "op"})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close(context.Background())
	var out record.Batch
	if err := in.Process(context.Background(), batchOf("ab"), &out); err != nil || fmt.Sprint(values(&out)) != "[AB]" {
		t.Fatalf("one-input operator: %v, %v", values(&out), err)
	}
}
