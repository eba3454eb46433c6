// Command pairjoin is a join function for the built-in joins (a job spec's
// intervalJoin or windowJoin with module and function, docs/jobs.md): the
// host hands it one record per joined pair, whose value frames the pair
// (sdk/ABI.md, "Join functions"), and it emits "RIGHT<-LEFT", or
// "LEFT<-none" to the side output "unmatched" for a left outer join's left
// row without a match. It writes
// the pair the other way round from the built-in concatenation, so that a
// test can tell which of the two ran.
package main

import floe "github.com/floe-stream/floe/sdk/go"

func init() {
	floe.FlatMap("swap", swap)
}

// swap emits one record per pair; floe.SplitPair decodes its frame.
func swap(rec []byte, out floe.Emitter) error {
	left, right, hasRight, err := floe.SplitPair(rec)
	if err != nil {
		return err
	}
	if !hasRight {
		out.EmitTo("unmatched", append(append([]byte(nil), left...), "<-none"...))
		return nil
	}
	v := append(append([]byte(nil), right...), "<-"...)
	out.Emit(append(v, left...))
	return nil
}

func main() {}
