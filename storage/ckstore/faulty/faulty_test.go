package faulty_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/storage/ckstore"
	"github.com/floe-stream/floe/storage/ckstore/faulty"
	"github.com/floe-stream/floe/storage/ckstore/localfs"
	"github.com/floe-stream/floe/storage/ckstore/storetest"
)

func newStore(t *testing.T) *faulty.Store {
	t.Helper()
	inner, err := localfs.Open(filepath.Join(t.TempDir(), "store"))
	if err != nil {
		t.Fatal(err)
	}
	return faulty.New(inner)
}

// TestConformance checks that a Store without rules is a conforming store.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) ckstore.Store { return newStore(t) })
}

func put(s ckstore.Store, p, data string) error {
	return s.Put(context.Background(), p, strings.NewReader(data), int64(len(data)))
}

func TestFailNext(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	boom := errors.New("boom")
	s.FailNext(faulty.OpPut, "chk-*/_metadata", boom)
	if err := put(s, "chk-1/sst", "x"); err != nil {
		t.Fatalf("Put of a path the rule does not match: %v", err)
	}
	if err := put(s, "chk-1/_metadata", "m"); !errors.Is(err, boom) {
		t.Fatalf("Put: error = %v, want %v", err, boom)
	}
	if _, err := s.Stat(ctx, "chk-1/_metadata"); !errors.Is(err, ckstore.ErrNotFound) {
		t.Errorf("Stat after failed Put: %v, want ErrNotFound", err)
	}
	if err := put(s, "chk-1/_metadata", "m"); err != nil {
		t.Fatalf("second Put: %v", err)
	}
	s.FailNext(faulty.OpGet, "", nil)
	if _, err := s.Get(ctx, "chk-1/_metadata"); !errors.Is(err, faulty.ErrInjected) {
		t.Errorf("Get: error = %v, want ErrInjected", err)
	}
	if got := s.Calls(faulty.OpPut); got != 3 {
		t.Errorf("Calls(put) = %d, want 3", got)
	}
	if put, get := s.Failures(faulty.OpPut), s.Failures(faulty.OpGet); put != 1 || get != 1 {
		t.Errorf("Failures(put), Failures(get) = %d, %d; want 1, 1", put, get)
	}
}

func TestFailAlways(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	s.FailAlways(faulty.OpList, "", nil)
	s.FailAlways(faulty.OpDelete, "chk-2/*", nil)
	for range 3 {
		if _, err := s.List(ctx, "chk-1/"); !errors.Is(err, faulty.ErrInjected) {
			t.Fatalf("List: error = %v, want ErrInjected", err)
		}
		if err := s.Delete(ctx, "chk-2/x"); !errors.Is(err, faulty.ErrInjected) {
			t.Fatalf("Delete: error = %v, want ErrInjected", err)
		}
	}
	s.Reset()
	if _, err := s.List(ctx, ""); err != nil {
		t.Fatalf("List after Reset: %v", err)
	}
}

func TestFailAfter(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if err := put(s, "old", "previous"); err != nil {
		t.Fatal(err)
	}
	s.FailAfter(faulty.OpPut, "", 3, nil)
	for _, p := range []string{"new", "old", "new"} {
		if err := put(s, p, "0123456789"); !errors.Is(err, faulty.ErrInjected) {
			t.Fatalf("Put(%q): error = %v, want ErrInjected", p, err)
		}
	}
	if err := put(s, "short", "012"); err != nil {
		t.Errorf("Put of no more than n bytes: %v", err)
	}
	if got := s.Failures(faulty.OpPut); got != 3 {
		t.Errorf("Failures(put) = %d, want 3: one per failed Put, none for the one that passed", got)
	}
	s.Reset()
	if got, _ := s.List(ctx, ""); strings.Join(got, " ") != "old short" {
		t.Errorf("List = %q, want [old short]: failed Puts must leave nothing", got)
	}

	s.FailAfter(faulty.OpGet, "old", 4, nil)
	rc, err := s.Get(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if string(got) != "prev" || !errors.Is(err, faulty.ErrInjected) {
		t.Errorf("read %q, %v; want %q, ErrInjected", got, err, "prev")
	}
}

func TestDelay(t *testing.T) {
	s := newStore(t)
	s.Delay(faulty.OpStat, "", 30*time.Millisecond)
	start := time.Now()
	if _, err := s.Stat(context.Background(), "x"); !errors.Is(err, ckstore.ErrNotFound) {
		t.Fatalf("Stat: %v", err)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("Stat took %v, want at least 30ms", d)
	}
	s.Delay(faulty.OpPut, "", time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := s.Put(ctx, "x", strings.NewReader(""), 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Put delayed past its deadline: error = %v", err)
	}
}

func TestBadPattern(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a malformed pattern did not panic")
		}
	}()
	newStore(t).FailNext(faulty.OpPut, "[", nil)
}

// getOnly hides the wrapped store's GetRange.
type getOnly struct{ ckstore.Store }

func TestGetRange(t *testing.T) {
	ctx := context.Background()
	for _, ranged := range []bool{true, false} {
		t.Run(fmt.Sprintf("inner-ranged=%v", ranged), func(t *testing.T) {
			inner, err := localfs.Open(filepath.Join(t.TempDir(), "store"))
			if err != nil {
				t.Fatal(err)
			}
			var s *faulty.Store
			if ranged {
				s = faulty.New(inner)
			} else {
				s = faulty.New(getOnly{inner})
			}
			if err := put(s, "obj", "0123456789"); err != nil {
				t.Fatal(err)
			}
			read := func(off, n int64) (string, error) {
				rc, err := s.GetRange(ctx, "obj", off, n)
				if err != nil {
					return "", err
				}
				defer rc.Close()
				b, err := io.ReadAll(rc)
				return string(b), err
			}
			for _, tc := range []struct {
				off, n int64
				want   string
			}{{0, 3, "012"}, {4, 2, "45"}, {8, 5, "89"}, {12, 3, ""}} {
				if got, err := read(tc.off, tc.n); got != tc.want || err != nil {
					t.Errorf("GetRange(%d, %d) = %q, %v; want %q", tc.off, tc.n, got, err, tc.want)
				}
			}
			if _, err := s.GetRange(ctx, "none", 0, 1); !errors.Is(err, ckstore.ErrNotFound) {
				t.Errorf("GetRange of a missing object: error = %v, want ErrNotFound", err)
			}
			s.FailNext(faulty.OpGet, "obj", nil)
			if _, err := read(0, 3); !errors.Is(err, faulty.ErrInjected) {
				t.Errorf("GetRange after FailNext: error = %v, want ErrInjected", err)
			}
			s.FailAfter(faulty.OpGet, "obj", 2, nil)
			if got, err := read(3, 4); got != "34" || !errors.Is(err, faulty.ErrInjected) {
				t.Errorf("GetRange after FailAfter: read %q, %v; want %q, ErrInjected", got, err, "34")
			}
			if got := s.Calls(faulty.OpGet); got != 7 {
				t.Errorf("Calls(get) = %d, want 7", got)
			}
		})
	}
}
