package task

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/floe-stream/floe/host/exchange"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/storage/keygroup"
)

// recorder is a target that writes down what it receives.
type recorder struct {
	values []string // "key=value" of every record, in order
	tail   []string // what came after the records: barrier N, end
}

func (r *recorder) Send(_ context.Context, m exchange.Message) error {
	switch {
	case m.End:
		r.tail = append(r.tail, "end")
	case m.Barrier > 0:
		r.tail = append(r.tail, fmt.Sprintf("barrier %d", m.Barrier))
	default:
		if len(r.tail) > 0 {
			return fmt.Errorf("records after %v", r.tail)
		}
		for _, rec := range m.Batch.Records {
			r.values = append(r.values, string(rec.Key)+"="+string(rec.Value))
		}
	}
	return nil
}

// TestOutputsFanOutToEveryEdge routes batches to two edges, a hash edge
// keyed by value over three subtasks and a forward edge to one: every
// record reaches the forward target once, in order, unkeyed, and the
// subtask that owns its key group once, keyed; barriers and the end follow
// the records on every target.
func TestOutputsFanOutToEveryEdge(t *testing.T) {
	const maxPar = 128
	hash := []*recorder{{}, {}, {}}
	fwd := &recorder{}
	var keyedIn, keyedOut int
	o := &outputs{counted: func(i int, in, out *record.Batch) {
		if i != 7 {
			t.Errorf("keyer counted as operator %d, want 7", i)
		}
		keyedIn, keyedOut = keyedIn+in.Len(), keyedOut+out.Len()
	}}
	targets := []exchange.Sender{hash[0], hash[1], hash[2]}
	o.edges = append(o.edges,
		edgeOut{key: &keyer{sel: jobspec.KeySelector{Kind: jobspec.KeyValue}, maxParallelism: maxPar}, keyIdx: 7,
			router: exchange.NewRouter(4, targets, exchange.ByKeyGroup, maxPar, 2)},
		edgeOut{keyIdx: -1, router: exchange.NewRouter(1, []exchange.Sender{fwd}, exchange.RoundRobin, maxPar, 2)})
	ctx := context.Background()
	var words []string
	for i := range 50 {
		words = append(words, fmt.Sprintf("w%d", i%17))
	}
	for batch := range slices.Chunk(words, 6) {
		var b record.Batch
		for _, w := range batch {
			b.Append(nil, []byte(w), 0)
		}
		if err := o.Route(ctx, &b); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.Barrier(ctx, 3, false); err != nil {
		t.Fatal(err)
	}
	if err := o.End(ctx); err != nil {
		t.Fatal(err)
	}
	// What each target should have got, worked out record by record.
	wantFwd, wantHash := []string{}, make([][]string, 3)
	for _, w := range words {
		wantFwd = append(wantFwd, "="+w)
		sub := keygroup.SubtaskFor(int(keygroup.Of([]byte(w), maxPar)), maxPar, 3)
		wantHash[sub] = append(wantHash[sub], w+"="+w)
	}
	if !slices.Equal(fwd.values, wantFwd) {
		t.Errorf("forward target got %v, want %v", fwd.values, wantFwd)
	}
	for i, r := range hash {
		if !slices.Equal(r.values, wantHash[i]) {
			t.Errorf("hash target %d got %v, want %v", i, r.values, wantHash[i])
		}
	}
	for i, r := range append(hash, fwd) {
		if !slices.Equal(r.tail, []string{"barrier 3", "end"}) {
			t.Errorf("target %d ended with %v, want barrier 3 then end", i, r.tail)
		}
	}
	if keyedIn != len(words) || keyedOut != len(words) {
		t.Errorf("keyer counted %d in, %d out; want %d each", keyedIn, keyedOut, len(words))
	}
}
