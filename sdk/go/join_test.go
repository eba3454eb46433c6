//go:build !wasip1

package floe_test

import (
	"errors"
	"fmt"
	"testing"

	floe "github.com/floe-stream/floe/sdk/go"
)

// The frames below are written out byte by byte from sdk/ABI.md's layout:
// u32 left_len little-endian, left, u8 has_right, right.
func TestSplitPair(t *testing.T) {
	for _, c := range []struct {
		name        string
		frame       []byte
		left, right string
		hasRight    bool
	}{
		{"pair", []byte{2, 0, 0, 0, 'l', '1', 1, 'r', '1', '2'}, "l1", "r12", true},
		{"empty left", []byte{0, 0, 0, 0, 1, 'r'}, "", "r", true},
		{"empty right", []byte{3, 0, 0, 0, 'a', 'b', 'c', 1}, "abc", "", true},
		{"unmatched left", []byte{1, 0, 0, 0, 'x', 0}, "x", "", false},
		{"both empty", []byte{0, 0, 0, 0, 1}, "", "", true},
	} {
		left, right, hasRight, err := floe.SplitPair(c.frame)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(left) != c.left || string(right) != c.right || hasRight != c.hasRight {
			t.Errorf("%s: SplitPair(%v) = %q, %q, %v; want %q, %q, %v", c.name, c.frame, left, right, hasRight, c.left, c.right, c.hasRight)
		}
		if !hasRight && right != nil {
			t.Errorf("%s: an unmatched left row has a non-nil right %q", c.name, right)
		}
	}
}

func TestSplitPairAliasesTheFrame(t *testing.T) {
	frame := []byte{1, 0, 0, 0, 'a', 1, 'b'}
	left, right, _, err := floe.SplitPair(frame)
	if err != nil {
		t.Fatal(err)
	}
	frame[4], frame[6] = 'A', 'B'
	if string(left) != "A" || string(right) != "B" {
		t.Errorf("left, right = %q, %q after writing the frame; want \"A\", \"B\" (aliases)", left, right)
	}
}

func TestSplitPairRefusesMalformedFrames(t *testing.T) {
	for _, c := range []struct {
		name  string
		frame []byte
	}{
		{"nil", nil},
		{"shorter than the header", []byte{0, 0, 0, 0}},
		{"left_len past the end", []byte{3, 0, 0, 0, 'a', 'b', 1}},
		{"left_len fills the frame, no flag", []byte{2, 0, 0, 0, 'a', 'b'}},
		{"left_len near 2^32", []byte{0xff, 0xff, 0xff, 0xff, 1}},
		{"has_right 2", []byte{1, 0, 0, 0, 'a', 2, 'b'}},
		{"has_right 0 with right bytes", []byte{1, 0, 0, 0, 'a', 0, 'b'}},
	} {
		left, right, hasRight, err := floe.SplitPair(c.frame)
		if !errors.Is(err, floe.ErrMalformedPair) {
			t.Errorf("%s: SplitPair(%v) = %q, %q, %v, %v; want an ErrMalformedPair", c.name, c.frame, left, right, hasRight, err)
		}
	}
}

func ExampleSplitPair() {
	// The pair ("ab", "c"): left_len 2, "ab", has_right 1, "c".
	left, right, hasRight, err := floe.SplitPair([]byte{2, 0, 0, 0, 'a', 'b', 1, 'c'})
	fmt.Printf("%s %s %v %v\n", left, right, hasRight, err)
	// A left outer join's unmatched left row "ab": has_right 0, no right bytes.
	left, right, hasRight, err = floe.SplitPair([]byte{2, 0, 0, 0, 'a', 'b', 0})
	fmt.Printf("%s %q %v %v\n", left, right, hasRight, err)
	// Output:
	// ab c true <nil>
	// ab "" false <nil>
}
