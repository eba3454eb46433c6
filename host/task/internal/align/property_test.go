package align

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestRandomInterleavings checks the aligner's promise on random runs: each
// input sends records and the barriers of checkpoints 1..K in order (some
// end early), the task receives the inputs interleaved at random and
// handles what was held before it reads on, as its inbox loop does. Every
// checkpoint must be taken once, in order, after exactly the records each
// input sent before its barrier, and every record must be processed once,
// in the order its input sent it.
func TestRandomInterleavings(t *testing.T) {
	for seed := uint64(0); seed < 500; seed++ {
		if err := randomRun(rand.New(rand.NewPCG(seed, 14))); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

func randomRun(r *rand.Rand) error {
	inputs, checkpoints := 1+r.IntN(4), 1+r.IntN(5)
	// sent[i] is input i's stream; before[i][k] counts its records before
	// barrier k+1 (all of them if it ends first).
	sent := make([][]msg, inputs)
	before := make([][]int, inputs)
	for i := range sent {
		n, ends := 0, r.IntN(3) == 0
		last := checkpoints
		if ends {
			last = r.IntN(checkpoints + 1)
		}
		for k := 1; k <= checkpoints; k++ {
			for j := r.IntN(4); j > 0; j-- {
				sent[i] = append(sent[i], msg{in: i, kind: "data", arg: fmt.Sprint(n)})
				n++
			}
			if k <= last {
				sent[i] = append(sent[i], msg{in: i, kind: "barrier", arg: fmt.Sprint(k)})
			}
			before[i] = append(before[i], n)
		}
		if ends {
			sent[i] = append(sent[i], msg{in: i, kind: "end"})
			// A checkpoint whose barrier the input never sends waits for
			// its end, after all its records.
			for k := last + 1; k <= checkpoints; k++ {
				before[i][k-1] = n
			}
		}
	}
	a := New[msg](inputs)
	processed := make([]int, inputs)
	next := make([]int, inputs)
	taken := int64(0)
	handle := func(m msg) error {
		if a.Hold(m.in, m) {
			return nil
		}
		var out Outcome
		switch m.kind {
		case "data":
			if m.arg != fmt.Sprint(processed[m.in]) {
				return fmt.Errorf("input %d: processed record %s after %d records", m.in, m.arg, processed[m.in])
			}
			processed[m.in]++
			return nil
		case "barrier":
			var id int64
			fmt.Sscan(m.arg, &id)
			var err error
			if out, err = a.Barrier(m.in, id); err != nil {
				return err
			}
		case "end":
			out = a.End(m.in)
		}
		if out.Snapshot == 0 {
			return nil
		}
		if out.Snapshot != taken+1 {
			return fmt.Errorf("snapshot %d after %d", out.Snapshot, taken)
		}
		taken = out.Snapshot
		for i := range processed {
			if want := before[i][taken-1]; processed[i] != want {
				return fmt.Errorf("checkpoint %d: input %d processed %d records, want %d", taken, i, processed[i], want)
			}
		}
		return nil
	}
	for {
		for m, ok := a.Replay(); ok; m, ok = a.Replay() {
			if err := handle(m); err != nil {
				return err
			}
		}
		var open []int
		for i := range sent {
			if next[i] < len(sent[i]) {
				open = append(open, i)
			}
		}
		if len(open) == 0 {
			break
		}
		i := open[r.IntN(len(open))]
		m := sent[i][next[i]]
		next[i]++
		if err := handle(m); err != nil {
			return err
		}
	}
	for i, n := range processed {
		if want := before[i][checkpoints-1]; n != want {
			return fmt.Errorf("input %d: processed %d records of %d", i, n, want)
		}
	}
	// Every checkpoint completes unless every input ended before its
	// barrier.
	want := int64(0)
	for k := 1; k <= checkpoints; k++ {
		for i := range sent {
			if len(sent[i]) > 0 && hasBarrier(sent[i], k) {
				want = int64(k)
			}
		}
	}
	if taken != want {
		return fmt.Errorf("took checkpoints up to %d, want %d", taken, want)
	}
	return nil
}

func hasBarrier(s []msg, k int) bool {
	for _, m := range s {
		if m.kind == "barrier" && m.arg == fmt.Sprint(k) {
			return true
		}
	}
	return false
}
