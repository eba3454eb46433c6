package memkv_test

import (
	"testing"

	"github.com/floe-stream/floe/storage/kv"
	"github.com/floe-stream/floe/storage/kv/kvtest"
	"github.com/floe-stream/floe/storage/kv/memkv"
)

func TestConformance(t *testing.T) {
	kvtest.RunSuite(t, func(*testing.T) kv.Store { return memkv.New() })
}

func TestOverwriteDoesNotAllocate(t *testing.T) {
	s := memkv.New()
	key, val := []byte("counter"), []byte("12345678")
	if err := s.Set(key, val); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, err := s.Get(key); err != nil {
			t.Fatal(err)
		}
		if err := s.Set(key, val); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Get and Set of an existing key allocate %v times", allocs)
	}
}
