package snapshot

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/floe-stream/floe/storage/keygroup"
)

// manyBlocks returns operations over key groups 0..127, about 14 MiB in
// all so that a whole-range read takes several chunks: key group 40 alone
// holds 6 MiB, more than a chunk, and key groups 100..109 hold nothing.
func manyBlocks() []op {
	var ops []op
	for kg := uint16(0); kg < 128; kg++ {
		if kg >= 100 && kg < 110 {
			continue
		}
		n, size := 1+int(kg%7), 8<<10+int(kg)*500
		if kg == 40 {
			n, size = 6, 1<<20
		}
		for i := 0; i < n; i++ {
			v := bytes.Repeat([]byte{byte('a' + i)}, size)
			ops = append(ops, op{Op(1 + (int(kg)+i)%2), key(kg, fmt.Sprint("k", i)), string(v)})
		}
		ops = append(ops, op{DeleteRange, key(kg, "x"), key(kg, "y")})
	}
	return ops
}

// blockBytes returns the bytes of the blocks of the key groups in rng, as
// the index records them.
func blockBytes(t *testing.T, b []byte, rng keygroup.Range) int64 {
	t.Helper()
	blocks, _, err := readIndex(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, blk := range blocks {
		if rng.Contains(int(blk.kg)) {
			n += int64(blk.length)
		}
	}
	return n
}

func TestChunkedReadReturnsTheWrittenOperations(t *testing.T) {
	ops := manyBlocks()
	b := write(t, ops)
	if len(b) < 3*chunkBytes {
		t.Fatalf("snapshot of %d bytes spans too few chunks", len(b))
	}
	indexBytes := int64(trailer + entry*(128-10))
	for _, rng := range []keygroup.Range{
		{Start: 0, End: 128}, {Start: 0, End: 1}, {Start: 127, End: 128},
		{Start: 39, End: 42}, {Start: 40, End: 41}, {Start: 41, End: 100},
		{Start: 95, End: 115}, {Start: 100, End: 110}, {Start: 50, End: 50},
		{Start: 128, End: 200},
	} {
		var want []op
		for _, o := range ops {
			if rng.Contains(int(binary.BigEndian.Uint16([]byte(o.key)))) {
				want = append(want, o)
			}
		}
		var got []op
		read, err := Read(bytes.NewReader(b), int64(len(b)), rng, func(o Op, k, v []byte) error {
			got = append(got, op{o, string(k), string(v)})
			return nil
		})
		if err != nil {
			t.Fatalf("range %v: %v", rng, err)
		}
		if len(got) != len(want) {
			t.Fatalf("range %v: %d operations, want %d", rng, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("range %v: operation %d is %v %q (%d bytes), want %v %q (%d bytes)",
					rng, i, got[i].op, got[i].key, len(got[i].value), want[i].op, want[i].key, len(want[i].value))
			}
		}
		if wantRead := indexBytes + blockBytes(t, b, rng); read != wantRead {
			t.Errorf("range %v: read %d bytes, want the index and the range's blocks, %d", rng, read, wantRead)
		}
	}
}

// writeFile writes a snapshot of about size bytes to a file: 1 KiB puts
// spread over 128 key groups.
func writeFile(tb testing.TB, size int) (*os.File, int64) {
	tb.Helper()
	f, err := os.Create(filepath.Join(tb.TempDir(), "snap"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	w := NewWriter(f)
	v := bytes.Repeat([]byte{'v'}, 1<<10)
	n := size / (len(v) + 16)
	for i := 0; i < n; i++ {
		k := binary.BigEndian.AppendUint16(nil, uint16(i*128/n))
		k = binary.BigEndian.AppendUint64(k, uint64(i))
		if err := w.Add(Put, k, v); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return f, w.Size()
}

// TestReadAllocationDoesNotGrowWithTheRange reads a 100 MB snapshot whole
// and checks that it allocated well under its size: a read of the whole
// range at once would allocate all of it.
func TestReadAllocationDoesNotGrowWithTheRange(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100 MB file")
	}
	f, size := writeFile(t, 100<<20)
	var ops int
	count := func(Op, []byte, []byte) error { ops++; return nil }
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read, err := Read(f, size, keygroup.Range{Start: 0, End: 128}, count)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if read != size-int64(len(magic)) || ops == 0 {
		t.Fatalf("read %d of %d bytes, %d operations", read, size, ops)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("read %d bytes, allocated %d (%.3f of them)", read, allocated, float64(allocated)/float64(read))
	if allocated > uint64(size)/4 {
		t.Fatalf("reading a %d-byte snapshot allocated %d bytes", size, allocated)
	}
}

// BenchmarkRead reports the bytes Read allocates for ranges of growing
// size: B/op stays near one chunk instead of following the range.
func BenchmarkRead(b *testing.B) {
	f, size := writeFile(b, 64<<20)
	for _, kgs := range []int{8, 32, 128} {
		rng := keygroup.Range{Start: 0, End: kgs}
		b.Run(fmt.Sprint("keygroups=", kgs), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(size * int64(kgs) / 128)
			for b.Loop() {
				if _, err := Read(f, size, rng, func(Op, []byte, []byte) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
