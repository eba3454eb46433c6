package kvtest

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/floe-stream/floe/storage/kv"
)

// Opener opens a fresh, empty store for one test. The suite closes it.
type Opener func(t *testing.T) kv.Store

// RunSuite runs every conformance test against stores made by open, each
// as a subtest.
func RunSuite(t *testing.T, open Opener) {
	tests := []struct {
		name string
		run  func(t *testing.T, s kv.Store)
	}{
		{"GetMissing", testGetMissing},
		{"Overwrite", testOverwrite},
		{"EmptyValue", testEmptyValue},
		{"Delete", testDelete},
		{"DeleteRange", testDeleteRange},
		{"ScanOrderAndBounds", testScanOrderAndBounds},
		{"ScanStopsOnError", testScanStopsOnError},
		{"SetCopies", testSetCopies},
		{"ReadsAfterFlush", testReadsAfterFlush},
		{"ManyKeys", testManyKeys},
		{"Closed", testClosed},
		{"MatchesModel", testMatchesModel},
		{"ObservedMatchesModel", testObservedMatchesModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil && !errors.Is(err, kv.ErrClosed) {
					t.Errorf("Close: %v", err)
				}
			})
			tt.run(t, s)
		})
	}
}

func testGetMissing(t *testing.T, s kv.Store) {
	mustSet(t, s, "a", "1")
	for _, k := range []string{"", "b", "a\x00", "\xff"} {
		wantGet(t, s, k, "", false)
	}
}

func testOverwrite(t *testing.T, s kv.Store) {
	for _, v := range []string{"short", "a much longer value than before", "x", ""} {
		mustSet(t, s, "k", v)
		wantGet(t, s, "k", v, true)
	}
}

func testEmptyValue(t *testing.T, s kv.Store) {
	mustSet(t, s, "", "")
	mustSet(t, s, "e", "")
	wantGet(t, s, "", "", true)
	wantGet(t, s, "e", "", true)
	wantScan(t, s, "", "", "=,e=")
}

func testDelete(t *testing.T, s kv.Store) {
	mustSet(t, s, "a", "1")
	mustSet(t, s, "b", "2")
	must(t, s.Delete([]byte("a")))
	must(t, s.Delete([]byte("never")))
	wantGet(t, s, "a", "", false)
	wantGet(t, s, "b", "2", true)
	must(t, s.Flush())
	must(t, s.Delete([]byte("b")))
	wantGet(t, s, "b", "", false)
	mustSet(t, s, "a", "3")
	wantScan(t, s, "", "", "a=3")
}

func testDeleteRange(t *testing.T, s kv.Store) {
	tests := []struct {
		start, end, want string
	}{
		{"b", "d", "a=1,d=4,e=5"},
		{"b", "b", "a=1,b=2,c=3,d=4,e=5"},
		{"a", "a\x00", "b=2,c=3,d=4,e=5"},
		{"", "\xff", ""},
		{"c", "zz", "a=1,b=2"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("[%q,%q)", tt.start, tt.end), func(t *testing.T) {
			for i, k := range []string{"a", "b", "c", "d", "e"} {
				mustSet(t, s, k, fmt.Sprint(i+1))
			}
			must(t, s.Flush())
			mustSet(t, s, "c", "3") // One key is written after the flush.
			must(t, s.DeleteRange([]byte(tt.start), []byte(tt.end)))
			wantScan(t, s, "", "", tt.want)
			for _, kv := range splitPairs(tt.want) {
				wantGet(t, s, kv[0], kv[1], true)
			}
			must(t, s.DeleteRange(nil, []byte("\xff\xff")))
		})
	}
}

func testScanOrderAndBounds(t *testing.T, s kv.Store) {
	for _, k := range []string{"b", "ab", "a\x00", "a", "\xff", "\x00", "a\xff"} {
		mustSet(t, s, k, "v")
	}
	all := "\x00=v,a=v,a\x00=v,ab=v,a\xff=v,b=v,\xff=v"
	tests := []struct {
		start, end, want string
		nilEnd           bool
	}{
		{"", "", all, true},
		{"a", "", "a=v,a\x00=v,ab=v,a\xff=v,b=v,\xff=v", true},
		{"a", "ab", "a=v,a\x00=v", false},
		{"a\x01", "b", "ab=v,a\xff=v", false},
		{"a\x00", "b", "a\x00=v,ab=v,a\xff=v", false},
		{"aa", "ab", "", false},
		{"b", "b", "", false},
		{"c", "a", "", false},
		{"\xff", "\xff\x00", "\xff=v", false},
	}
	for _, tt := range tests {
		var end []byte
		if !tt.nilEnd {
			end = []byte(tt.end)
		}
		if got := scan(t, s, []byte(tt.start), end); got != tt.want {
			t.Errorf("Scan(%q, %q) = %q, want %q", tt.start, end, got, tt.want)
		}
	}
}

func testScanStopsOnError(t *testing.T, s kv.Store) {
	for _, k := range []string{"a", "b", "c"} {
		mustSet(t, s, k, "v")
	}
	stop := errors.New("stop")
	var seen []string
	err := s.Scan(nil, nil, func(k, _ []byte) error {
		seen = append(seen, string(k))
		if string(k) == "b" {
			return stop
		}
		return nil
	})
	if err != stop || len(seen) != 2 {
		t.Errorf("Scan returned %v after %q, want %v after [a b]", err, seen, stop)
	}
}

func testSetCopies(t *testing.T, s kv.Store) {
	key, val := []byte("key"), []byte("value")
	must(t, s.Set(key, val))
	copy(key, "KEY")
	copy(val, "VALUE")
	wantGet(t, s, "key", "value", true)
	wantGet(t, s, "KEY", "", false)
	got, _, err := s.Get([]byte("key"))
	must(t, err)
	kept := string(got)
	mustSet(t, s, "key", "other")
	if kept != "value" {
		t.Errorf("copy of Get result changed to %q", kept)
	}
}

func testReadsAfterFlush(t *testing.T, s kv.Store) {
	for i := range 100 {
		mustSet(t, s, fmt.Sprintf("k%03d", i), fmt.Sprint(i))
	}
	must(t, s.Flush())
	for i := range 100 {
		wantGet(t, s, fmt.Sprintf("k%03d", i), fmt.Sprint(i), true)
	}
	mustSet(t, s, "k050", "changed")
	must(t, s.Flush())
	wantGet(t, s, "k050", "changed", true)
	if got := scan(t, s, []byte("k049"), []byte("k051")); got != "k049=49,k050=changed" {
		t.Errorf("Scan = %q", got)
	}
}

func testManyKeys(t *testing.T, s kv.Store) {
	const n = 20000
	for i := range n {
		mustSet(t, s, fmt.Sprintf("%08d", i), fmt.Sprint(i))
	}
	for i := 0; i < n; i += 7 {
		wantGet(t, s, fmt.Sprintf("%08d", i), fmt.Sprint(i), true)
	}
	count, prev := 0, ""
	must(t, s.Scan(nil, nil, func(k, _ []byte) error {
		if string(k) <= prev && count > 0 {
			return fmt.Errorf("key %q after %q", k, prev)
		}
		count, prev = count+1, string(k)
		return nil
	}))
	if count != n {
		t.Errorf("Scan saw %d keys, want %d", count, n)
	}
}

func testClosed(t *testing.T, s kv.Store) {
	mustSet(t, s, "a", "1")
	must(t, s.Close())
	k := []byte("a")
	errs := map[string]error{
		"Close":       s.Close(),
		"Set":         s.Set(k, k),
		"Delete":      s.Delete(k),
		"DeleteRange": s.DeleteRange(k, k),
		"Scan":        s.Scan(nil, nil, func(_, _ []byte) error { return nil }),
		"Flush":       s.Flush(),
	}
	_, _, errs["Get"] = s.Get(k)
	for name, err := range errs {
		if !errors.Is(err, kv.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

// must fails the test on a non-nil error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// mustSet stores v under k.
func mustSet(t *testing.T, s kv.Store, k, v string) {
	t.Helper()
	must(t, s.Set([]byte(k), []byte(v)))
}

// wantGet checks what Get returns for k.
func wantGet(t *testing.T, s kv.Store, k, want string, wantOK bool) {
	t.Helper()
	got, ok, err := s.Get([]byte(k))
	must(t, err)
	if ok != wantOK || string(got) != want {
		t.Errorf("Get(%q) = %q, %v; want %q, %v", k, got, ok, want, wantOK)
	}
}

// wantScan checks the formatted result of Scan(start, end); an empty end
// means no upper bound.
func wantScan(t *testing.T, s kv.Store, start, end, want string) {
	t.Helper()
	var e []byte
	if end != "" {
		e = []byte(end)
	}
	if got := scan(t, s, []byte(start), e); got != want {
		t.Errorf("Scan(%q, %q) = %q, want %q", start, end, got, want)
	}
}

// scan formats the pairs in [start, end) as "k=v,k=v".
func scan(t *testing.T, s kv.Store, start, end []byte) string {
	t.Helper()
	var b bytes.Buffer
	must(t, s.Scan(start, end, func(k, v []byte) error {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%s", k, v)
		return nil
	}))
	return b.String()
}

// splitPairs parses the output format of scan.
func splitPairs(s string) [][2]string {
	var out [][2]string
	for _, p := range bytes.Split([]byte(s), []byte(",")) {
		if k, v, ok := bytes.Cut(p, []byte("=")); ok {
			out = append(out, [2]string{string(k), string(v)})
		}
	}
	return out
}
