package artifact

import (
	"bytes"
	"errors"
	"testing"
)

func TestPutGetIsContentAddressed(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b := []byte("\x00asm module a"), []byte("\x00asm module b")
	da, err := s.Put(a)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := s.Put(a); again != da {
		t.Fatalf("same bytes, digests %s and %s", da, again)
	}
	db, _ := s.Put(b)
	if da == db {
		t.Fatal("different bytes share a digest")
	}
	// The well-known SHA-256 of the empty string.
	if d := Digest(nil); d != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatalf("Digest(nil) = %s", d)
	}
	got, err := s.Get(da)
	if err != nil || !bytes.Equal(got, a) {
		t.Fatalf("Get = %q, %v", got, err)
	}
	for _, d := range []string{Digest([]byte("absent")), "../../etc/passwd", ""} {
		if _, err := s.Get(d); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q) = %v, want ErrNotFound", d, err)
		}
		if s.Has(d) {
			t.Errorf("Has(%q) = true", d)
		}
	}
}

func TestDelete(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Put([]byte("\x00asm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(d); err != nil {
		t.Fatal(err)
	}
	if s.Has(d) {
		t.Fatal("a deleted artifact is still there")
	}
	if err := s.Delete(d); err != nil {
		t.Errorf("deleting it again: %v, want no error", err)
	}
	if err := s.Delete("../x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete(../x) = %v, want ErrNotFound", err)
	}
}
