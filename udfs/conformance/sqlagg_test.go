package conformance

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/window"
)

// sqlAggregate runs the command sql-aggregate: each input line is a
// group's argument rows, in hex, separated by spaces. The harness drives
// the open aggregate function as a SQL operator does, through floe_window:
// one add creates every group's accumulator from the first half of its
// rows, a second adds the rest to it, a result call prints each group's
// value ("group N: HEX"), and a merge of all the groups' accumulators
// prints the value of the whole ("merged: HEX"). Accumulators are each
// SDK's own bytes; only the results are compared.
func (h *harness) sqlAggregate(t *testing.T, d *datadriven.TestData) string {
	ctx := context.Background()
	fn := &window.Wasm{In: h.in, Agg: true}
	var first, second []window.AddGroup
	for _, line := range nonEmptyLines(d.Input) {
		var elems []window.Elem
		for _, f := range strings.Fields(line) {
			v, err := hex.DecodeString(f)
			if err != nil {
				t.Fatalf("%s: bad hex %q", d.Pos, f)
			}
			elems = append(elems, window.Elem{Value: v, Timestamp: record.NoTimestamp})
		}
		first = append(first, window.AddGroup{Elems: elems[:len(elems)/2]})
		second = append(second, window.AddGroup{Elems: elems[len(elems)/2:], HasAcc: true})
	}
	accs, err := fn.Add(ctx, first)
	if err != nil {
		return h.result(err, nil)
	}
	for i := range second {
		second[i].Acc = accs[i]
	}
	if accs, err = fn.Add(ctx, second); err != nil {
		return h.result(err, nil)
	}
	accs = cloneAll(accs)
	merged, err := fn.Merge(ctx, [][][]byte{accs})
	if err != nil {
		return h.result(err, nil)
	}
	fire := make([]window.FireGroup, 0, len(accs)+1)
	for _, a := range append(accs, merged[0]) {
		fire = append(fire, window.FireGroup{Acc: a})
	}
	var out record.Batch
	if err := fn.Fire(ctx, fire, &out); err != nil {
		return h.result(err, nil)
	}
	if out.Len() != len(fire) {
		return fmt.Sprintf("error: %d results for %d groups", out.Len(), len(fire))
	}
	var b strings.Builder
	for i, r := range out.Records {
		if i == len(accs) {
			fmt.Fprintf(&b, "merged: %x\n", r.Value)
			continue
		}
		fmt.Fprintf(&b, "group %d: %x\n", i+1, r.Value)
	}
	return b.String()
}

// cloneAll copies byte slices that the next call would overwrite.
func cloneAll(bs [][]byte) [][]byte {
	out := make([][]byte, len(bs))
	for i, b := range bs {
		out[i] = append([]byte(nil), b...)
	}
	return out
}
