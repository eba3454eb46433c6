package join

import (
	"bytes"
	"testing"
)

func TestFrame(t *testing.T) {
	for _, p := range []Pair{
		{Left: []byte("l"), Right: []byte("r"), HasRight: true},
		{Left: nil, Right: nil, HasRight: true},
		{Left: []byte("only left")},
		{Left: []byte{0, 1, 0}, Right: []byte{1, 0}, HasRight: true},
	} {
		l, r, has, err := SplitFrame(AppendFrame(nil, p))
		if err != nil || !bytes.Equal(l, p.Left) || !bytes.Equal(r, p.Right) || has != p.HasRight {
			t.Errorf("%+v: got %q %q %v %v", p, l, r, has, err)
		}
	}
	for _, bad := range [][]byte{nil, {1, 0, 0, 0, 1}, {0, 0, 0, 0, 2}, {0, 0, 0, 0, 0, 9}, {9, 0, 0, 0, 1, 1}} {
		if _, _, _, err := SplitFrame(bad); err == nil {
			t.Errorf("SplitFrame(%v) = nil error", bad)
		}
	}
}
