package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/storage/ckstore"
)

// waitLimit bounds every wait for another goroutine, so a broken store
// fails the test instead of hanging it.
const waitLimit = 20 * time.Second

// gateReader yields data, but stops halfway until told to go on (nil) or
// to fail (an error).
type gateReader struct {
	data    []byte
	half    int
	reached chan struct{} // closed once the first half is read
	gate    chan error
	passed  bool
}

func newGateReader(data []byte) *gateReader {
	return &gateReader{data: data, half: len(data) / 2, reached: make(chan struct{}), gate: make(chan error, 1)}
}

func (g *gateReader) Read(p []byte) (int, error) {
	if g.half == 0 && !g.passed {
		close(g.reached)
		if err := <-g.gate; err != nil {
			return 0, err
		}
		g.passed = true
	}
	limit := len(g.data)
	if !g.passed {
		limit = g.half
	}
	n := copy(p, g.data[:limit])
	g.data, g.half = g.data[n:], g.half-n
	if len(g.data) == 0 {
		return n, io.EOF
	}
	return n, nil
}

// testUnfinishedPutInvisible checks that an object is invisible while its
// Put is reading, and stays so if the Put fails.
func testUnfinishedPutInvisible(t *testing.T, s ckstore.Store) {
	boom := errors.New("source failed midway")
	for _, outcome := range []error{boom, nil} {
		data := payload(4, 64<<10)
		g := newGateReader(data)
		var wg sync.WaitGroup
		var putErr error
		wg.Go(func() { putErr = s.Put(context.Background(), "chk/meta", g, -1) })
		select {
		case <-g.reached:
		case <-time.After(waitLimit):
			t.Fatal("Put did not read its input")
		}
		wantAbsent(t, s, "chk/meta")
		wantList(t, s, "chk", nil)
		g.gate <- outcome
		wg.Wait()
		if outcome != nil {
			if !errors.Is(putErr, outcome) {
				t.Fatalf("failing Put: error = %v, want %v", putErr, outcome)
			}
			wantAbsent(t, s, "chk/meta")
			wantList(t, s, "", nil)
			continue
		}
		if putErr != nil {
			t.Fatalf("Put: %v", putErr)
		}
		wantObject(t, s, "chk/meta", data)
	}
}

func testConcurrentPuts(t *testing.T, s ckstore.Store) {
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	want := make([]string, n)
	for i := range n {
		want[i] = fmt.Sprintf("chk-3/op-%d/%02d.sst", i%3, i)
		wg.Go(func() {
			data := payload(uint64(i), 100<<10+i)
			errs[i] = s.Put(context.Background(), want[i], bytes.NewReader(data), int64(len(data)))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	wantList(t, s, "", want)
	for i := range n {
		wantObject(t, s, fmt.Sprintf("chk-3/op-%d/%02d.sst", i%3, i), payload(uint64(i), 100<<10+i))
	}
}

// testConcurrentPutsSamePath checks that racing Puts of one path leave one
// of them whole, not a mix.
func testConcurrentPutsSamePath(t *testing.T, s ckstore.Store) {
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			data := bytes.Repeat([]byte{byte('a' + i)}, 300<<10)
			errs[i] = s.Put(context.Background(), "same", onlyReader{bytes.NewReader(data)}, -1)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	got := mustGet(t, s, "same")
	if len(got) != 300<<10 || bytes.Count(got, got[:1]) != len(got) {
		t.Fatalf("Get after racing Puts: %d bytes, not %d copies of one byte", len(got), 300<<10)
	}
	wantList(t, s, "", []string{"same"})
}

func testCancelled(t *testing.T, s ckstore.Store) {
	mustPut(t, s, "there", []byte("x"), true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Put(ctx, "new", bytes.NewReader([]byte("data")), 4); !errors.Is(err, context.Canceled) {
		t.Errorf("Put: error = %v, want context.Canceled", err)
	}
	if rc, err := s.Get(ctx, "there"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get: error = %v, want context.Canceled", err)
		if err == nil {
			rc.Close()
		}
	}
	if _, err := s.Stat(ctx, "there"); !errors.Is(err, context.Canceled) {
		t.Errorf("Stat: error = %v, want context.Canceled", err)
	}
	if _, err := s.List(ctx, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("List: error = %v, want context.Canceled", err)
	}
	if err := s.Delete(ctx, "there"); !errors.Is(err, context.Canceled) {
		t.Errorf("Delete: error = %v, want context.Canceled", err)
	}
	wantAbsent(t, s, "new")
	wantObject(t, s, "there", []byte("x"))
}
