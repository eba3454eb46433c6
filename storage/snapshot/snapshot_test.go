package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/floe-stream/floe/storage/keygroup"
)

type op struct {
	op         Op
	key, value string
}

func key(kg uint16, s string) string {
	return string(binary.BigEndian.AppendUint16(nil, kg)) + s
}

func write(t *testing.T, ops []op) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, o := range ops {
		if err := w.Add(o.op, []byte(o.key), []byte(o.value)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Size() != int64(buf.Len()) {
		t.Fatalf("Size %d, wrote %d", w.Size(), buf.Len())
	}
	return buf.Bytes()
}

func readAll(t *testing.T, b []byte, rng keygroup.Range) ([]op, error) {
	var got []op
	_, err := Read(bytes.NewReader(b), int64(len(b)), rng, func(o Op, k, v []byte) error {
		got = append(got, op{o, string(k), string(v)})
		return nil
	})
	return got, err
}

func TestRangesReadExactlyTheirKeyGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 50; round++ {
		var ops []op
		seen := map[string]bool{}
		for i := 0; i < r.IntN(300); i++ {
			k := key(uint16(r.IntN(128)), fmt.Sprint("k", r.IntN(1000)))
			if !seen[k] {
				seen[k] = true
				ops = append(ops, op{Op(1 + r.IntN(3)), k, fmt.Sprint("v", i)})
			}
		}
		sort.Slice(ops, func(i, j int) bool { return ops[i].key < ops[j].key })
		b := write(t, ops)
		start := r.IntN(128)
		rng := keygroup.Range{Start: start, End: start + r.IntN(129-start)}
		got, err := readAll(t, b, rng)
		if err != nil {
			t.Fatal(err)
		}
		var want []op
		for _, o := range ops {
			if rng.Contains(int(binary.BigEndian.Uint16([]byte(o.key)))) {
				want = append(want, o)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("range %v:\ngot  %v\nwant %v", rng, got, want)
		}
	}
}

func TestCorruptionIsDetected(t *testing.T) {
	b := write(t, []op{{Put, key(1, "a"), "1"}, {Put, key(1, "b"), "2"}, {Delete, key(7, "c"), ""}})
	all := keygroup.Range{Start: 0, End: 128}
	for i := 0; i < len(b); i++ {
		bad := bytes.Clone(b)
		bad[i] ^= 0x40
		if got, err := readAll(t, bad, all); err == nil && fmt.Sprint(got) != "[{1 \x00\x01a 1} {1 \x00\x01b 2} {2 \x00\x07c }]" {
			t.Fatalf("flipping byte %d went unnoticed: %q", i, got)
		}
	}
	for _, n := range []int{0, 5, len(b) - 1} {
		if _, err := readAll(t, b[:n], all); !errors.Is(err, ErrCorrupt) {
			t.Errorf("truncated to %d bytes: %v", n, err)
		}
	}
}

func TestKeysMustAscend(t *testing.T) {
	w := NewWriter(&bytes.Buffer{})
	if err := w.Add(Put, []byte(key(2, "b")), nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(Put, []byte(key(2, "a")), nil); err == nil {
		t.Fatal("descending key accepted")
	}
}
