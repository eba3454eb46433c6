package localfs

import (
	"bytes"
	"context"
	"io"
	"testing"
)

func TestGetRangeReadsExactlyTheRange(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	data := []byte("0123456789abcdefghij")
	if err := s.Put(ctx, "a/b", bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ off, n int64 }{{0, 20}, {3, 4}, {19, 1}, {5, 0}} {
		rc, err := s.GetRange(ctx, "a/b", tc.off, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, data[tc.off:tc.off+tc.n]) {
			t.Errorf("GetRange(%d, %d) = %q, %v", tc.off, tc.n, got, err)
		}
	}
	if _, err := s.GetRange(ctx, "nope", 0, 1); err == nil {
		t.Error("a range of a missing object")
	}
}
