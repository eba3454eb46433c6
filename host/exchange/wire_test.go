package exchange

import (
	"bytes"
	"errors"
	"fmt"
	"go/build"
	"math"
	"strings"
	"testing"

	"github.com/floe-stream/floe/host/record"
)

type rec struct {
	key, value string
	ts         int64
	kg         uint16
}

func batchOf(recs ...rec) *record.Batch {
	b := new(record.Batch)
	for _, r := range recs {
		b.AppendKeyed([]byte(r.key), []byte(r.value), r.ts, r.kg)
	}
	return b
}

// equalBatches reports the first difference between the records of a and b.
func equalBatches(a, b *record.Batch) error {
	if a.Len() != b.Len() {
		return fmt.Errorf("%d records, want %d", a.Len(), b.Len())
	}
	for i := range a.Records {
		x, y := &a.Records[i], &b.Records[i]
		if !bytes.Equal(x.Key, y.Key) || !bytes.Equal(x.Value, y.Value) || x.Timestamp != y.Timestamp || x.KeyGroup != y.KeyGroup {
			return fmt.Errorf("record %d: got {%q %q %d %d}, want {%q %q %d %d}",
				i, x.Key, x.Value, x.Timestamp, x.KeyGroup, y.Key, y.Value, y.Timestamp, y.KeyGroup)
		}
	}
	return nil
}

func TestWireRoundTrip(t *testing.T) {
	long := string(bytes.Repeat([]byte("v"), 10000))
	tests := []struct {
		name string
		recs []rec
	}{
		{"empty batch", nil},
		{"one record", []rec{{"k", "v", 1700000000000, 7}}},
		{"empty key", []rec{{"", "value", 5, 0}}},
		{"empty value", []rec{{"key", "", 5, 3}}},
		{"empty key and value", []rec{{"", "", 0, 0}, {"", "", 0, 0}}},
		{"no timestamp", []rec{{"a", "1", record.NoTimestamp, 1}, {"b", "2", record.NoTimestamp, 2}}},
		{"timestamps mixed with none", []rec{
			{"a", "1", 1700000000000, 1}, {"b", "2", record.NoTimestamp, 2},
			{"c", "3", 1700000000005, 3}, {"d", "4", math.MaxInt64, 4}, {"e", "5", -3, 5},
		}},
		{"max key group", []rec{{"k", "v", 0, math.MaxUint16}}},
		{"long value", []rec{{"k", long, 1, 1}, {"k2", "short", 2, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := batchOf(tt.recs...)
			buf := AppendBatch([]byte("prefix"), in)
			if !bytes.HasPrefix(buf, []byte("prefix")) {
				t.Fatalf("AppendBatch overwrote dst")
			}
			out := batchOf(rec{"already", "there", 9, 9})
			if err := DecodeBatch(buf[len("prefix"):], out); err != nil {
				t.Fatalf("DecodeBatch: %v", err)
			}
			want := batchOf(append([]rec{{"already", "there", 9, 9}}, tt.recs...)...)
			if err := equalBatches(out, want); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestWireDecodeCopies(t *testing.T) {
	buf := AppendBatch(nil, batchOf(rec{"key", "value", 1, 1}))
	b := new(record.Batch)
	if err := DecodeBatch(buf, b); err != nil {
		t.Fatal(err)
	}
	clear(buf)
	if err := equalBatches(b, batchOf(rec{"key", "value", 1, 1})); err != nil {
		t.Fatalf("after clearing the source: %v", err)
	}
}

func TestWireCompact(t *testing.T) {
	b := new(record.Batch)
	for i := range 100 {
		b.Append([]byte("k"), []byte("v"), 1700000000000+int64(i))
	}
	// Per record: 2 length bytes, 1 timestamp delta byte, 2 key group
	// bytes, key and value; the first timestamp costs 6 bytes.
	if got, max := len(AppendBatch(nil, b)), 2+100*7+5; got > max {
		t.Errorf("100 small records encode to %d bytes, want at most %d", got, max)
	}
}

func TestWireMalformed(t *testing.T) {
	good := AppendBatch(nil, batchOf(rec{"key", "value", 1, 2}, rec{"k2", "v2", 3, 4}))
	tests := []struct {
		name string
		src  []byte
	}{
		{"empty", nil},
		{"unknown version", append([]byte{2}, good[1:]...)},
		{"no count", []byte{wireVersion}},
		{"count too large", []byte{wireVersion, 5, 0, 0, 0, 0, 0}},
		{"huge count", []byte{wireVersion, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"count overflows", []byte{wireVersion, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"truncated", good[:len(good)-1]},
		{"trailing bytes", append(bytes.Clone(good), 0)},
		{"key longer than batch", []byte{wireVersion, 1, 0xff, 0xff, 0x03, 0, 0, 0, 0}},
		{"huge key length", []byte{wireVersion, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 0, 0}},
		{"value past end", []byte{wireVersion, 1, 0, 2, 0, 0, 0, 'x'}},
		{"key group cut", []byte{wireVersion, 1, 0, 0, 0, 0, 0, 0}[:6]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := batchOf(rec{"keep", "me", 1, 1})
			err := DecodeBatch(tt.src, b)
			if !errors.Is(err, ErrMalformedBatch) {
				t.Fatalf("DecodeBatch(%x) = %v, want ErrMalformedBatch", tt.src, err)
			}
			if err := equalBatches(b, batchOf(rec{"keep", "me", 1, 1})); err != nil {
				t.Errorf("batch changed by a failed decode: %v", err)
			}
		})
	}
}

// FuzzDecodeBatch checks that DecodeBatch never panics, leaves the batch as
// it was on error, and that whatever it accepts re-encodes to the same
// records.
func FuzzDecodeBatch(f *testing.F) {
	f.Add(AppendBatch(nil, batchOf()))
	f.Add(AppendBatch(nil, batchOf(rec{"key", "value", 1700000000000, 12})))
	f.Add(AppendBatch(nil, batchOf(rec{"", "", record.NoTimestamp, 0}, rec{"a", "", 0, 65535})))
	f.Add([]byte{wireVersion, 1, 0xff, 0xff, 0x03, 0, 0, 0, 0})
	f.Add([]byte{wireVersion, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, src []byte) {
		b := batchOf(rec{"pre", "existing", 1, 1})
		if err := DecodeBatch(src, b); err != nil {
			if !errors.Is(err, ErrMalformedBatch) {
				t.Fatalf("error %v does not wrap ErrMalformedBatch", err)
			}
			if b.Len() != 1 {
				t.Fatalf("failed decode left %d records, want 1", b.Len())
			}
			return
		}
		decoded := &record.Batch{Records: b.Records[1:]}
		again := new(record.Batch)
		if err := DecodeBatch(AppendBatch(nil, decoded), again); err != nil {
			t.Fatalf("re-encoded batch does not decode: %v", err)
		}
		if err := equalBatches(again, decoded); err != nil {
			t.Fatalf("re-encoded batch differs: %v", err)
		}
	})
}

// benchBatch returns n records of 100 bytes each: a 16-byte key and an
// 84-byte value, with increasing timestamps.
func benchBatch(n int) *record.Batch {
	b := new(record.Batch)
	key := make([]byte, 16)
	value := bytes.Repeat([]byte("x"), 84)
	for i := range n {
		copy(key, fmt.Sprintf("key-%012d", i))
		b.AppendKeyed(key, value, 1700000000000+int64(i), uint16(i%128))
	}
	return b
}

func TestWireReuseAllocatesNothing(t *testing.T) {
	in := benchBatch(1024)
	buf := AppendBatch(nil, in)
	out := new(record.Batch)
	if err := DecodeBatch(buf, out); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		buf = AppendBatch(buf[:0], in)
		out.Reset()
		if err := DecodeBatch(buf, out); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("encode+decode with reused buffers: %v allocations, want 0", allocs)
	}
}

// BenchmarkWire encodes and decodes a batch of 1024 100-byte records,
// reusing the buffer and the batch.
func BenchmarkWire(b *testing.B) {
	in := benchBatch(1024)
	var buf []byte
	out := new(record.Batch)
	b.SetBytes(1024 * 100)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendBatch(buf[:0], in)
		out.Reset()
		if err := DecodeBatch(buf, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*1024/b.Elapsed().Seconds(), "records/s")
}

// TestNoNetworkImports keeps the exchange pure: the network lives in the
// transport package.
func TestNoNetworkImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, "google.golang.org/") || imp == "net" || strings.HasPrefix(imp, "net/") {
			t.Errorf("package exchange imports %s", imp)
		}
	}
}
