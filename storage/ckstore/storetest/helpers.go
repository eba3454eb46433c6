package storetest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/floe-stream/floe/storage/ckstore"
)

// payload returns n pseudo-random bytes, the same for the same seed.
func payload(seed uint64, n int) []byte {
	var s [32]byte
	s[0] = byte(seed)
	s[1] = byte(seed >> 8)
	b := make([]byte, n)
	rand.NewChaCha8(s).Read(b)
	return b
}

// sizeArg returns the size to pass to Put for data: its length or -1.
func sizeArg(data []byte, known bool) int64 {
	if known {
		return int64(len(data))
	}
	return -1
}

// onlyReader hides any other interface of r (such as io.Seeker), so the
// store sees a plain stream.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func mustPut(t *testing.T, s ckstore.Store, p string, data []byte, known bool) {
	t.Helper()
	if err := s.Put(context.Background(), p, onlyReader{bytes.NewReader(data)}, sizeArg(data, known)); err != nil {
		t.Fatalf("Put(%q, %d bytes): %v", p, len(data), err)
	}
}

// wantObject checks that Get and Stat of p return data.
func wantObject(t *testing.T, s ckstore.Store, p string, data []byte) {
	t.Helper()
	ctx := context.Background()
	size, err := s.Stat(ctx, p)
	if err != nil {
		t.Fatalf("Stat(%q): %v", p, err)
	}
	if size != int64(len(data)) {
		t.Errorf("Stat(%q) = %d, want %d", p, size, len(data))
	}
	got := mustGet(t, s, p)
	if !bytes.Equal(got, data) {
		t.Fatalf("Get(%q): got %d bytes, want %d; first difference at %d", p, len(got), len(data), firstDiff(got, data))
	}
}

func mustGet(t *testing.T, s ckstore.Store, p string) []byte {
	t.Helper()
	rc, err := s.Get(context.Background(), p)
	if err != nil {
		t.Fatalf("Get(%q): %v", p, err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("Get(%q): reading: %v", p, err)
	}
	return got
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// wantAbsent checks that p is reported missing by Get, Stat and List.
func wantAbsent(t *testing.T, s ckstore.Store, p string) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Stat(ctx, p); !errors.Is(err, ckstore.ErrNotFound) {
		t.Errorf("Stat(%q) error = %v, want ErrNotFound", p, err)
	}
	rc, err := s.Get(ctx, p)
	if err == nil {
		rc.Close()
	}
	if !errors.Is(err, ckstore.ErrNotFound) {
		t.Errorf("Get(%q) error = %v, want ErrNotFound", p, err)
	}
	if slices.Contains(mustList(t, s, ""), p) {
		t.Errorf("List lists %q", p)
	}
}

func mustList(t *testing.T, s ckstore.Store, prefix string) []string {
	t.Helper()
	got, err := s.List(context.Background(), prefix)
	if err != nil {
		t.Fatalf("List(%q): %v", prefix, err)
	}
	return got
}

func wantList(t *testing.T, s ckstore.Store, prefix string, want []string) {
	t.Helper()
	got := mustList(t, s, prefix)
	if len(got) != len(want) || !slices.Equal(got, want) {
		t.Errorf("List(%q) =\n  %q\nwant\n  %q", prefix, got, want)
	}
}

// failingReader yields data up to n bytes, then fails with err.
type failingReader struct {
	data []byte
	n    int
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, f.err
	}
	k := copy(p[:min(len(p), f.n)], f.data)
	f.data, f.n = f.data[k:], f.n-k
	return k, nil
}
