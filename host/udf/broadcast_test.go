package udf

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// entriesOf lists a broadcast map's entries as "k=v", in iteration order.
func entriesOf(t *testing.T, m BroadcastMap) []string {
	t.Helper()
	var out []string
	if err := m.Iter(func(k, v []byte) error {
		out = append(out, string(k)+"="+string(v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// modelEntries lists a Go map as entriesOf does, in ascending key order.
func modelEntries(model map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(model)) {
		out = append(out, k+"="+model[k])
	}
	return out
}

// TestBroadcastMapMatchesAModel applies random puts, deletes and clears to
// a broadcast map and to a Go map, and checks after each that gets agree
// and iteration yields the model's entries in ascending key order; then
// that a snapshot preset into another subtask's state reads the same.
func TestBroadcastMapMatchesAModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 20 {
		lists := NewOperatorLists()
		m, err := lists.BroadcastMap("op/rules")
		if err != nil {
			t.Fatal(err)
		}
		model := map[string]string{}
		for step := range 200 {
			k := fmt.Sprintf("k%d", r.IntN(30))
			switch n := r.IntN(20); {
			case n == 0:
				m.Clear()
				clear(model)
			case n < 6:
				m.Delete([]byte(k))
				delete(model, k)
			default:
				v := strings.Repeat("v", r.IntN(3)) + fmt.Sprint(step)
				m.Put([]byte(k), []byte(v))
				model[k] = v
			}
			got, ok := m.Get([]byte(k))
			want, wantOK := model[k]
			if ok != wantOK || string(got) != want {
				t.Fatalf("round %d step %d: Get(%s) = %q, %v; want %q, %v", round, step, k, got, ok, want, wantOK)
			}
			if e, w := entriesOf(t, m), modelEntries(model); !slices.Equal(e, w) {
				t.Fatalf("round %d step %d: entries %v, want %v", round, step, e, w)
			}
		}
		snap := lists.Snapshot()
		if len(snap) != 1 || snap[0].Kind != KindBroadcastMap || snap[0].Namespace != "op/rules" {
			t.Fatalf("snapshot %+v, want the one broadcast map", snap)
		}
		restored := NewOperatorLists()
		elems := slices.Clone(snap[0].Elems)
		r.Shuffle(len(elems), func(i, j int) { elems[i], elems[j] = elems[j], elems[i] })
		restored.Preset("op/rules", KindBroadcastMap, elems)
		m2, err := restored.BroadcastMap("op/rules")
		if err != nil {
			t.Fatal(err)
		}
		if e, w := entriesOf(t, m2), modelEntries(model); !slices.Equal(e, w) {
			t.Fatalf("round %d: restored entries %v, want %v", round, e, w)
		}
	}
}

// TestBroadcastMapRefusesBadState checks the errors of declaring a
// broadcast map: over a malformed restored entry, and under a namespace
// saved or declared as another kind of operator state.
func TestBroadcastMapRefusesBadState(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(o *OperatorLists)
		want  string
	}{
		{"malformed", func(o *OperatorLists) {
			o.Preset("op/r", KindBroadcastMap, [][]byte{{9, 0, 0, 0, 'k'}})
		}, `broadcast state "op/r": restored entry 0 is malformed`},
		{"short", func(o *OperatorLists) {
			o.Preset("op/r", KindBroadcastMap, [][]byte{{1}})
		}, `broadcast state "op/r": restored entry 0 is malformed`},
		{"saved as a list", func(o *OperatorLists) {
			o.Preset("op/r", KindUnionList, nil)
		}, `operator list "op/r" was saved as operator list (union) state and is now declared as broadcast map state`},
		{"declared as a list", func(o *OperatorLists) {
			if _, err := o.List("op/r", KindEvenSplitList); err != nil {
				t.Fatal(err)
			}
		}, `operator list "op/r" declared as operator list (even split) and as broadcast map`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOperatorLists()
			tc.setup(o)
			_, err := o.BroadcastMap("op/r")
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}
