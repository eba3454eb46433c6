//go:build !wasip1

package main

import (
	"encoding/binary"
	"testing"

	"github.com/floe-stream/floe/sdk/go/floetest"
)

// frame builds a pair frame as sdk/ABI.md lays it out, independently of
// the host's encoder.
func frame(left, right string, hasRight bool) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(left)))
	b = append(b, left...)
	if !hasRight {
		return append(b, 0)
	}
	return append(append(b, 1), right...)
}

func TestSwap(t *testing.T) {
	h := floetest.New()
	if err := h.Open("swap", nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in           []byte
		output, want string
	}{
		{frame("l1", "r1", true), "main", "r1<-l1"},
		{frame("", "r", true), "main", "r<-"},
		{frame("lonely", "", false), "unmatched", "lonely<-none"},
	} {
		out, err := h.Process(floetest.Record{Value: c.in})
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 || string(out[0].Value) != c.want || out[0].Output != c.output {
			t.Errorf("swap(%q) = %v, want %s %q", c.in, out, c.output, c.want)
		}
	}
	for _, bad := range [][]byte{
		{9, 0, 0, 0, 1},           // left_len 9 past the end
		{1, 0, 0, 0, 'a', 0, 'b'}, // has_right 0 with a right byte
		{1, 0, 0, 0, 'a', 7},      // has_right 7
	} {
		if _, err := h.Process(floetest.Record{Value: bad}); err == nil {
			t.Errorf("the malformed frame %v was accepted", bad)
		}
	}
}
