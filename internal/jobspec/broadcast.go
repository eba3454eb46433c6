package jobspec

import "slices"

// This file checks the broadcast input of a coProcess (Flink's broadcast
// state pattern, a KeyedBroadcastProcessFunction):
//
//	- type: coProcess
//	  inputs: [by-user, rules]
//	  broadcast: rules
//	  functions: [onEvent, onRule]
//
// broadcast names one of the coProcess's two inputs. Its records are not
// keyed: every record goes to every subtask of the coProcess, whose
// function for that input may write the operator's broadcast state; the
// other input is keyed as for any coProcess, and its function may only
// read the broadcast state. So broadcast must name exactly one of the two
// inputs, and that input cannot be a keyBy.

// BroadcastInput returns the index in Inputs of the operator's broadcast
// input, or -1 when it has none.
func (op *Operator) BroadcastInput() int {
	if op.Broadcast == "" {
		return -1
	}
	return slices.Index(op.Inputs, op.Broadcast)
}

// checkBroadcast checks the broadcast input of the operator at path
// against its resolved inputs.
func (b *builder) checkBroadcast(path string, op *Operator, nodes map[string]*graphNode) {
	if op.Broadcast == "" || op.Type != OperatorCoProcess || len(op.Inputs) != 2 {
		return
	}
	bp := path + ".broadcast"
	switch n := countOf(op.Inputs, op.Broadcast); {
	case n == 0:
		b.p.add(bp, "%q is not one of the coProcess's inputs (%q, %q): name the input to send to every subtask", op.Broadcast, op.Inputs[0], op.Inputs[1])
	case n == 2:
		b.p.add(bp, "both inputs are %q: a broadcast coProcess reads one keyed input and one broadcast input", op.Broadcast)
	default:
		if g := nodes[op.Broadcast]; g != nil && g.op != nil && g.op.Type == OperatorKeyBy {
			b.p.add(bp, "%q is a keyBy, but a broadcast input goes whole to every subtask and takes no key: read what the keyBy reads instead", op.Broadcast)
		}
	}
}

func countOf(l []string, s string) int {
	n := 0
	for _, e := range l {
		if e == s {
			n++
		}
	}
	return n
}
