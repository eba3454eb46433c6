package object

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestCheckPath(t *testing.T) {
	for _, p := range []string{"a", "a/b", "chk-1/op-2/000003.sst", "_metadata", ".hidden", "a/..b", "é/ü", "a b", strings.Repeat("x", 255)} {
		if err := CheckPath(p); err != nil {
			t.Errorf("CheckPath(%q): %v", p, err)
		}
	}
	for _, p := range []string{
		"", "/a", "a/", "a//b", ".", "..", "./a", "a/./b", "a/../b", "a\\b", "a\x00", "a\nb", "a\x7f",
		"\xff", ".floe-tmp.1", "a/.floe-tmp.x", strings.Repeat("x", 256), strings.Repeat("x/", 400) + "x",
	} {
		if err := CheckPath(p); !errors.Is(err, ErrInvalidPath) {
			t.Errorf("CheckPath(%q) = %v, want ErrInvalidPath", p, err)
		}
	}
}

func TestCheckPrefix(t *testing.T) {
	for _, p := range []string{"", "a", "a/", "a/b", "chk-1/", ".", "..", "a/.", ".floe-tmp"} {
		if err := CheckPrefix(p); err != nil {
			t.Errorf("CheckPrefix(%q): %v", p, err)
		}
	}
	for _, p := range []string{"/", "/a", "a//", "./", "../", "a/../", "a\\"} {
		if err := CheckPrefix(p); !errors.Is(err, ErrInvalidPath) {
			t.Errorf("CheckPrefix(%q) = %v, want ErrInvalidPath", p, err)
		}
	}
}

func TestExactReader(t *testing.T) {
	boom := errors.New("boom")
	for _, tt := range []struct {
		name    string
		r       io.Reader
		size    int64
		want    string
		wantErr error
	}{
		{"exact", strings.NewReader("hello"), 5, "hello", nil},
		{"empty", strings.NewReader(""), 0, "", nil},
		{"unknown", strings.NewReader("hello"), -1, "hello", nil},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader("hello")), 5, "hello", nil},
		{"data with EOF", iotest.DataErrReader(strings.NewReader("hello")), 5, "hello", nil},
		{"short", strings.NewReader("hell"), 5, "hell", ErrSizeMismatch},
		{"long", strings.NewReader("hello!"), 5, "", ErrSizeMismatch},
		{"long empty", strings.NewReader("!"), 0, "", ErrSizeMismatch},
		{"fails", io.MultiReader(strings.NewReader("he"), iotest.ErrReader(boom)), 5, "he", boom},
		{"fails at the end", io.MultiReader(strings.NewReader("hello"), iotest.ErrReader(boom)), 5, "", boom},
	} {
		got, err := io.ReadAll(ExactReader(tt.r, tt.size))
		if !errors.Is(err, tt.wantErr) || (tt.wantErr != nil) != (err != nil) {
			t.Errorf("%s: error = %v, want %v", tt.name, err, tt.wantErr)
		}
		if string(got) != tt.want {
			t.Errorf("%s: read %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestExactReaderReadFull checks that a reader with a surplus fails a
// consumer that reads exactly size bytes with io.ReadFull, which drops an
// error that comes with the bytes it asked for.
func TestExactReaderReadFull(t *testing.T) {
	buf := make([]byte, 5)
	_, err := io.ReadFull(ExactReader(bytes.NewReader([]byte("hello!")), 5), buf)
	if !errors.Is(err, ErrSizeMismatch) {
		t.Errorf("ReadFull of a long reader: error = %v, want ErrSizeMismatch", err)
	}
	_, err = io.ReadFull(ExactReader(bytes.NewReader([]byte("hello")), 5), buf)
	if err != nil {
		t.Errorf("ReadFull of an exact reader: %v", err)
	}
}
