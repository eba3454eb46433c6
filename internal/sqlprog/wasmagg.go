package sqlprog

import (
	"fmt"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// A Wasm aggregate (Agg with Fn wasm) is an aggregate function of a Wasm
// module (sdk/ABI.md, "SQL aggregate functions"): the module keeps its
// accumulator as bytes of its own, which the Aggregation holds as one
// VARCHAR value of its accumulator row (NULL until the first row creates
// one). Add and Merge leave that value alone: the operator folds a batch's
// rows into the accumulators of all its groups in one call of the module
// (host/sqlop), and asks it for the results the same way, so Result sees
// the function's result in the accumulator's place.

// WasmCall is the call of a Wasm aggregate function.
type WasmCall struct {
	// Module and Function name the function, as a spec's operator does.
	Module   string `json:"module"`
	Function string `json:"function"`
	// Args are the input columns of its arguments, in order.
	Args []int `json:"args"`
	// Returns is the type of its result.
	Returns sqlrow.Type `json:"returns"`
}

func (a *Aggregation) checkWasm(g Agg) error {
	c := g.Call
	switch {
	case g.Fn != Wasm || c == nil:
		return fmt.Errorf("call: for fn wasm only, and required there")
	case g.Arg != -1:
		return fmt.Errorf("a wasm aggregate takes args, not arg")
	case c.Module == "" || c.Function == "":
		return fmt.Errorf("call: module and function are required")
	case c.Returns == sqlrow.Null || c.Returns > sqlrow.Varchar:
		return fmt.Errorf("call: returns: unknown type %d", c.Returns)
	}
	for _, i := range c.Args {
		if i < 0 || i >= len(a.Input) {
			return fmt.Errorf("call: args: column %d of a row of %d", i, len(a.Input))
		}
	}
	return nil
}

// WasmAggs returns, for each Wasm aggregate, its index in Aggs and the
// index of its value in the accumulator row.
func (a *Aggregation) WasmAggs() (aggs, slots []int) {
	j := 0
	for i, g := range a.Aggs {
		if g.Fn == Wasm {
			aggs, slots = append(aggs, i), append(slots, j)
		}
		j += accWidth(g)
	}
	return aggs, slots
}

// AppendArgs appends the argument row of the Wasm aggregate g for the input
// row in: the values of its argument columns, encoded.
func AppendArgs(dst []byte, g Agg, in sqlrow.Row) []byte {
	for _, i := range g.Call.Args {
		dst = sqlrow.AppendValue(dst, in[i])
	}
	return dst
}
